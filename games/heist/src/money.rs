//! Integer and float-to-integer arithmetic of §2: exact integers with i128
//! intermediates, floors of f64 products, and saturation at the i64 range.

/// Brings an exact intermediate back into the i64 range, saturating.
pub fn saturate(value: i128) -> i64 {
    value.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

/// floor(factor × amount) with the product taken in f64, as §2 prescribes.
/// Rust's float-to-integer `as` saturates outside the range and maps NaN to 0.
pub fn floor_product(factor: f64, amount: i128) -> i128 {
    let product = factor * amount as f64;
    i128::from(product.floor() as i64)
}

/// Adds `delta` to `value`, saturating at the i64 range.
pub fn add(value: i64, delta: i128) -> i64 {
    // The 64-bit path is the common one; it runs for every player every game.
    match i64::try_from(delta) {
        Ok(delta) => value.saturating_add(delta),
        Err(_) => saturate(i128::from(value) + delta),
    }
}

/// floor(a × b / c) for non-negative a, b and positive c, exactly.
pub fn mul_div(a: i128, b: i128, c: i128) -> i128 {
    // 128-bit division is a slow library call; most products fit in 64 bits.
    match (u64::try_from(a), u64::try_from(b), u64::try_from(c)) {
        (Ok(a), Ok(b), Ok(c)) if c > 0 => match a.checked_mul(b) {
            Some(product) => i128::from(product / c),
            None => a as i128 * b as i128 / c as i128,
        },
        _ if c > 0 => a * b / c,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mul_div_is_exact() {
        assert_eq!(mul_div(115, 21, 231), 10);
        assert_eq!(mul_div(288, 180, 288), 180);
        assert_eq!(
            mul_div(i128::from(u64::MAX), 3, 2),
            i128::from(u64::MAX) * 3 / 2
        );
        assert_eq!(mul_div(7, 7, 0), 0);
    }

    #[test]
    fn floors_toward_negative_infinity() {
        assert_eq!(floor_product(0.8, 1240), 992);
        assert_eq!(floor_product(-0.05, 10), -1);
        assert_eq!(floor_product(1.1, 10), 11);
    }

    #[test]
    fn saturates() {
        assert_eq!(floor_product(1e300, 10), i128::from(i64::MAX));
        assert_eq!(floor_product(f64::NAN, 10), 0);
        assert_eq!(saturate(i128::MAX), i64::MAX);
        assert_eq!(add(i64::MAX, 5), i64::MAX);
        assert_eq!(add(5, -i128::from(u64::MAX)), i64::MIN);
        assert_eq!(add(5, -7), -2);
    }
}
