//! What the protocol property tests share.

/// `text` damaged: `junk` inserted where `cut` falls (moved back to a character boundary).
pub fn damaged(text: &str, cut: proptest::sample::Index, junk: &str) -> String {
    let at = cut.index(text.len() + 1);
    let at = (0..=at)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    format!("{}{junk}{}", &text[..at], &text[at..])
}
