//! Standard base64 with padding (RFC 4648, section 4), for the data of
//! images, audio and binary resources. Written here rather than taken from
//! the `base64` crate: docs/architecture.md, "Base64 without the `base64`
//! crate", gives the figures. It accepts exactly what that crate's
//! `STANDARD` engine accepts (canonical padding, no set bits past the last
//! byte) and words each refusal as that crate does.

use std::fmt;

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const PAD: u8 = b'=';

/// Why a text is not standard base64.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DecodeError {
    /// A byte outside the alphabet, or padding out of place: its offset.
    Symbol(usize, u8),
    /// A last group of one symbol: the offset just past it.
    Length(usize),
    /// Padding missing or of the wrong length.
    Padding,
    /// A last symbol with bits set past the data's last byte.
    LastSymbol(usize, u8),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Symbol(offset, byte) => write!(f, "Invalid symbol {byte}, offset {offset}."),
            Self::Length(length) => write!(f, "Invalid input length: {length}"),
            Self::Padding => f.write_str("Invalid padding"),
            Self::LastSymbol(offset, byte) => {
                write!(f, "Invalid last symbol {byte}, offset {offset}.")
            }
        }
    }
}

/// `bytes` in standard base64, padded.
pub(crate) fn encode(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for group in bytes.chunks(3) {
        let byte = |i: usize| u32::from(group.get(i).copied().unwrap_or(0));
        let bits = (byte(0) << 16) | (byte(1) << 8) | byte(2);
        for i in 0..4 {
            if i <= group.len() {
                let symbol = (bits >> (18 - 6 * i)) & 63;
                text.push(char::from(ALPHABET[symbol as usize]));
            } else {
                text.push(char::from(PAD));
            }
        }
    }
    text
}

/// The six bits a symbol of the alphabet stands for.
fn value(symbol: u8) -> Option<u32> {
    let value = match symbol {
        b'A'..=b'Z' => symbol - b'A',
        b'a'..=b'z' => symbol - b'a' + 26,
        b'0'..=b'9' => symbol - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    };
    Some(u32::from(value))
}

/// The bytes standard base64 `text` stands for. Errors name the first
/// problem as the `base64` crate finds it: an odd last byte first, then the
/// groups of four before the last in order, then the last group.
pub(crate) fn decode(text: &[u8]) -> Result<Vec<u8>, DecodeError> {
    let rest = text.len() % 4;
    if rest == 1 {
        let last = text[text.len() - 1];
        if last != PAD && value(last).is_none() {
            return Err(DecodeError::Symbol(text.len() - 1, last));
        }
    }
    // Every group of four but the last, which may hold padding.
    let body = text.len() - rest - if rest == 0 { text.len().min(4) } else { 0 };
    let mut bytes = Vec::with_capacity(text.len() / 4 * 3);
    for (group, symbols) in text[..body].chunks_exact(4).enumerate() {
        let mut bits = 0;
        for (i, &symbol) in symbols.iter().enumerate() {
            let value = value(symbol).ok_or(DecodeError::Symbol(group * 4 + i, symbol))?;
            bits = (bits << 6) | value;
        }
        bytes.extend_from_slice(&[(bits >> 16) as u8, (bits >> 8) as u8, bits as u8]);
    }
    last_group(text, body, bytes)
}

/// Decodes the last group, `text[start..]` (up to four symbols, padding
/// among them), onto `bytes`.
fn last_group(text: &[u8], start: usize, mut bytes: Vec<u8>) -> Result<Vec<u8>, DecodeError> {
    let (mut symbols, mut padding, mut first_pad, mut last) = (0, 0, 0, 0);
    let mut bits = 0u32;
    for (i, &symbol) in text[start..].iter().enumerate() {
        if symbol == PAD {
            if i < 2 {
                return Err(DecodeError::Symbol(start + i, symbol));
            }
            if padding == 0 {
                first_pad = i;
            }
            padding += 1;
            continue;
        }
        if padding > 0 {
            return Err(DecodeError::Symbol(start + first_pad, PAD));
        }
        last = symbol;
        let value = value(symbol).ok_or(DecodeError::Symbol(start + i, symbol))?;
        bits |= value << (26 - 6 * symbols);
        symbols += 1;
    }
    if !text.is_empty() && symbols < 2 {
        return Err(DecodeError::Length(start + symbols));
    }
    if (padding + symbols) % 4 != 0 {
        return Err(DecodeError::Padding);
    }
    let count = symbols * 6 / 8;
    if bits & (!0u32 >> (count * 8)) != 0 {
        return Err(DecodeError::LastSymbol(start + symbols - 1, last));
    }
    for i in 0..count {
        bytes.push((bits >> (24 - 8 * i)) as u8);
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;

    use super::*;

    /// A small deterministic generator, so a failure repeats.
    struct Seed(u64);

    impl Seed {
        fn below(&mut self, n: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 33) as usize % n
        }
    }

    #[test]
    fn encodes_as_the_base64_crate_does() {
        let mut seed = Seed(1);
        for length in 0..200 {
            let bytes: Vec<u8> = (0..length).map(|_| seed.below(256) as u8).collect();
            assert_eq!(encode(&bytes), STANDARD.encode(&bytes), "{bytes:?}");
            assert_eq!(decode(encode(&bytes).as_bytes()), Ok(bytes));
        }
    }

    #[test]
    fn decodes_and_refuses_as_the_base64_crate_does() {
        // Texts near valid base64: symbols, padding and stray bytes, of
        // every length up to 13, the crate's answer (or its error's
        // wording) the expected one.
        const SYMBOLS: &[u8] = b"AQgw/+9z==== \n-.\xff";
        let mut seed = Seed(2);
        for _ in 0..20_000 {
            let length = seed.below(14);
            let text: Vec<u8> = (0..length)
                .map(|_| SYMBOLS[seed.below(SYMBOLS.len())])
                .collect();
            let ours = decode(&text).map_err(|error| error.to_string());
            let theirs = STANDARD.decode(&text).map_err(|error| error.to_string());
            assert_eq!(ours, theirs, "{:?}", String::from_utf8_lossy(&text));
        }
    }

    #[test]
    fn refusals_name_the_problem() {
        let refused = |text: &str| decode(text.as_bytes()).unwrap_err().to_string();
        assert_eq!(refused("not base64!"), "Invalid symbol 32, offset 3.");
        assert_eq!(refused("AQI"), "Invalid padding");
        assert_eq!(refused("AQIDB"), "Invalid input length: 5");
        assert_eq!(refused("AR=="), "Invalid last symbol 82, offset 1.");
        assert_eq!(decode(b"AQID"), Ok(vec![1, 2, 3]));
        assert_eq!(decode(b""), Ok(Vec::new()));
    }
}
