//! Cell values (spec §3): stored as `u8`, meaning −127..=128 mod 256.

/// The value a cell displays: `v` if `v ≤ 128`, else `v − 256`.
pub fn signed(v: u8) -> i16 {
    if v <= 128 {
        i16::from(v)
    } else {
        i16::from(v) - 256
    }
}

/// Distance from 0 on the −127..=128 scale: |128| = 128, |−127| = 127.
pub fn magnitude(v: u8) -> u8 {
    // 256 − v fits in u8 whenever it is the smaller one (v ≥ 129).
    if v <= 128 {
        v
    } else {
        v.wrapping_neg()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_wrap_between_minus_127_and_128() {
        assert_eq!(signed(128), 128);
        assert_eq!(signed(128u8.wrapping_add(1)), -127);
        assert_eq!(signed(129u8.wrapping_sub(1)), 128);
        assert_eq!(signed(255), -1);
        assert_eq!(signed(0), 0);
        for v in 0..=255u8 {
            assert!((-127..=128).contains(&signed(v)));
        }
    }

    #[test]
    fn magnitude_is_the_absolute_display_value() {
        for v in 0..=255u8 {
            assert_eq!(i16::from(magnitude(v)), signed(v).abs());
        }
        assert_eq!(magnitude(128), 128);
        assert_eq!(magnitude(129), 127);
    }
}
