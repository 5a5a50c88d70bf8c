//! The decimal text of §6.3 for the f64 arguments (mean, MAD, probabilities, odds).
//!
//! 12 significant digits, correctly rounded from the exact binary value with
//! ties to even (what `printf("%.11e")` does; Rust's `{:.11e}` rounds the same
//! way), trailing zeros dropped, positional for decimal exponents −5..=14 and
//! `d.ddde±N` otherwise.

/// Smallest decimal exponent still written positionally.
const MIN_POSITIONAL_EXP: i32 = -5;
/// Largest decimal exponent still written positionally.
const MAX_POSITIONAL_EXP: i32 = 14;

/// Formats `value` as §6.3 prescribes.
///
/// Non-finite values cannot arise from the rules in practice; they are
/// written `nan`, `inf` and `-inf` so a bot still receives one word.
pub fn format_decimal(value: f64) -> String {
    if value.is_nan() {
        return "nan".to_string();
    }
    if value.is_infinite() {
        return if value > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    if value == 0.0 {
        return "0.0".to_string();
    }
    let scientific = format!("{:.11e}", value.abs());
    let Some((mantissa, exponent)) = scientific.split_once('e') else {
        return scientific;
    };
    let Ok(exponent) = exponent.parse::<i32>() else {
        return scientific;
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let digits = digits.trim_end_matches('0');
    // The leading digit of a non-zero value is never 0, so `digits` is not empty.
    let digits = if digits.is_empty() { "0" } else { digits };

    let mut text = String::with_capacity(24);
    if value < 0.0 {
        text.push('-');
    }
    if (MIN_POSITIONAL_EXP..=MAX_POSITIONAL_EXP).contains(&exponent) {
        write_positional(&mut text, digits, exponent);
    } else {
        write_exponent(&mut text, digits, exponent);
    }
    text
}

/// `digits` × 10^(exponent − len + 1) written without an exponent.
fn write_positional(text: &mut String, digits: &str, exponent: i32) {
    if exponent < 0 {
        text.push_str("0.");
        for _ in 0..(-exponent - 1) {
            text.push('0');
        }
        text.push_str(digits);
        return;
    }
    let integer_len = exponent as usize + 1;
    if digits.len() <= integer_len {
        text.push_str(digits);
        for _ in digits.len()..integer_len {
            text.push('0');
        }
        text.push_str(".0");
    } else {
        text.push_str(&digits[..integer_len]);
        text.push('.');
        text.push_str(&digits[integer_len..]);
    }
}

/// `d.ddde-N` / `d.ddde+N`, the mantissa always with a fractional digit.
fn write_exponent(text: &mut String, digits: &str, exponent: i32) {
    text.push_str(&digits[..1]);
    text.push('.');
    if digits.len() > 1 {
        text.push_str(&digits[1..]);
    } else {
        text.push('0');
    }
    text.push('e');
    text.push(if exponent < 0 { '-' } else { '+' });
    text.push_str(&exponent.unsigned_abs().to_string());
}

#[cfg(test)]
mod tests {
    use super::format_decimal as f;

    #[test]
    fn spec_examples() {
        assert_eq!(f(0.54), "0.54");
        assert_eq!(f(1.1), "1.1");
        assert_eq!(f(0.54 + 0.01 * (1.0 - 0.54)), "0.5446");
        assert_eq!(0.54 + 0.01 * (1.0 - 0.54), 0.5446000000000001);
        assert_eq!(f(3600.0), "3600.0");
        assert_eq!(f(46.666666666666664), "46.6666666667");
        assert_eq!(f(0.00001), "0.00001");
        assert_eq!(f(-0.01), "-0.01");
        assert_eq!(f(0.49000000000000005), "0.49");
        assert_eq!(f(123456789012345.0), "123456789012000.0");
        assert_eq!(f(1e15), "1.0e+15");
        assert_eq!(f(2.7755575615628914e-17), "2.77555756156e-17");
    }

    #[test]
    fn zero_of_either_sign() {
        assert_eq!(f(0.0), "0.0");
        assert_eq!(f(-0.0), "0.0");
    }

    #[test]
    fn exponent_boundaries() {
        // e = −5 is positional, e = −6 is not.
        assert_eq!(f(0.000012345), "0.000012345");
        assert_eq!(f(0.0000012345), "1.2345e-6");
        // e = 14 is positional, e = 15 is not.
        assert_eq!(f(99999999999.5), "99999999999.5");
        assert_eq!(f(99999999999999.0), "100000000000000.0");
        assert_eq!(f(100000000000000.0), "100000000000000.0");
        assert_eq!(f(1234567890123456.0), "1.23456789012e+15");
        assert_eq!(f(-1e-7), "-1.0e-7");
        assert_eq!(f(1e100), "1.0e+100");
    }

    #[test]
    fn rounding_can_raise_the_exponent() {
        // 999999999999999.9 has e = 14 but rounds to 1.00000000000e15.
        assert_eq!(f(999_999_999_999_999.9), "1.0e+15");
        // 0.0000099999999999996 rounds up to 1e-5, which is positional.
        assert_eq!(f(0.0000099999999999996), "0.00001");
    }

    #[test]
    fn ties_round_to_even_like_printf() {
        // Exactly representable 13-digit integers ending in 5.
        assert_eq!(f(1_234_567_890_125.0), "1234567890120.0");
        assert_eq!(f(1_234_567_890_135.0), "1234567890140.0");
    }

    #[test]
    fn twelve_significant_digits() {
        assert_eq!(f(1.0 / 3.0), "0.333333333333");
        assert_eq!(f(2.0 / 3.0), "0.666666666667");
        assert_eq!(f(0.1 + 0.2), "0.3");
        assert_eq!(f(240.0), "240.0");
        assert_eq!(f(-1234.5), "-1234.5");
        assert_eq!(f(5e-324), "4.94065645841e-324");
        assert_eq!(f(f64::MAX), "1.79769313486e+308");
    }

    #[test]
    fn non_finite_values_are_one_word() {
        assert_eq!(f(f64::NAN), "nan");
        assert_eq!(f(f64::INFINITY), "inf");
        assert_eq!(f(f64::NEG_INFINITY), "-inf");
    }
}
