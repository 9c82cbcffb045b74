//! The rules for text people choose: display names and chat (protocol.md section
//! 20). Both are normalized to Unicode NFC and trimmed; what is left must show
//! something, carry no control or bidirectional formatting characters, and fit the
//! length limit. A name may not pose as a built-in bot (bots are marked by the seat's
//! `bot` field, which no name can set).

use unicode_normalization::UnicodeNormalization;

use crate::{MAX_CHAT_CHARS, MAX_NAME_CHARS};

/// Bidirectional formatting characters: embeddings, overrides, isolates and marks,
/// which can make text read differently from what it is.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// Characters that show nothing on their own: zero-width ones, joiners, variation
/// selectors, the word joiner, the byte order mark, and white space.
fn is_invisible(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '\u{200B}'..='\u{200D}'
                | '\u{2060}'..='\u{2064}'
                | '\u{FEFF}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{180E}'
                | '\u{3164}'
                | '\u{115F}'
                | '\u{1160}'
                | '\u{FFA0}'
                | '\u{00AD}'
        )
}

/// NFC, trimmed of white space and of invisible characters at either end.
fn normalized(raw: &str) -> String {
    let nfc: String = raw.nfc().collect();
    nfc.trim_matches(is_invisible).to_owned()
}

/// Why a display name or a chat text is refused; its message names the text
/// (`what`: "the name", "the chat text").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TextError {
    /// Nothing is left after trimming (blank or invisible only).
    #[error("{what} is empty or shows nothing")]
    Empty {
        /// The text it is.
        what: &'static str,
    },
    /// Longer than the limit, in characters.
    #[error("{what} is longer than {max} characters")]
    TooLong {
        /// The text it is.
        what: &'static str,
        /// The limit.
        max: usize,
    },
    /// A control or bidirectional formatting character.
    #[error("{what} holds the control or formatting character U+{:04X}", u32::from(*.found))]
    Control {
        /// The text it is.
        what: &'static str,
        /// The character found.
        found: char,
    },
    /// A name that poses as a built-in bot ("(... bot)").
    #[error("the name poses as a bot; bots are marked by the server")]
    PosesAsBot,
    /// A name kept for the server's own use (a bot's or a stand-in's usual name,
    /// or the name of a deleted player), refused for an account.
    #[error("the name is kept for the server's own use")]
    Reserved,
}

/// The common checks; `what` names the text in messages.
fn check(text: &str, max: usize, what: &'static str) -> Result<(), TextError> {
    if text.is_empty() {
        return Err(TextError::Empty { what });
    }
    if text.chars().count() > max {
        return Err(TextError::TooLong { what, max });
    }
    if let Some(found) = text.chars().find(|c| c.is_control() || is_bidi_control(*c)) {
        return Err(TextError::Control { what, found });
    }
    Ok(())
}

/// Whether a name claims to be a built-in bot: a parenthesized part whose last word
/// is "bot", such as "(random bot)", as clients show bots.
fn claims_bot(name: &str) -> bool {
    let lower = name.to_lowercase();
    lower.split('(').skip(1).any(|part| {
        let inner = part.split(')').next().unwrap_or("").trim();
        inner == "bot" || inner.ends_with(" bot") || inner.ends_with("-bot")
    })
}

/// A display name as it is kept: NFC, trimmed, 1 to [`MAX_NAME_CHARS`] characters,
/// not only invisible characters, no control or bidirectional formatting characters,
/// and no "(... bot)" claim.
///
/// # Errors
/// Why the name is refused (the server answers `invalid_name`).
pub fn clean_name(raw: &str) -> Result<String, TextError> {
    let name = normalized(raw);
    check(&name, MAX_NAME_CHARS, "the name")?;
    if claims_bot(&name) {
        return Err(TextError::PosesAsBot);
    }
    Ok(name)
}

/// A chat text as it is sent: NFC, trimmed, 1 to [`MAX_CHAT_CHARS`] characters, not
/// only invisible characters, and no control characters (CR, LF, NUL, ESC, tab...)
/// or bidirectional formatting characters.
///
/// # Errors
/// Why the text is refused (the server answers `invalid_chat`).
pub fn clean_chat(raw: &str) -> Result<String, TextError> {
    let text = normalized(raw);
    check(&text, MAX_CHAT_CHARS, "the chat text")?;
    Ok(text)
}

/// The key that makes account names unique (docs/protocol/25-players.md): the
/// name in compatibility form (NFKC, so that full-width and other look-alike forms
/// meet their plain ones), lower-cased, its inner white space runs one space and
/// its invisible characters dropped. Two accounts cannot have names with one key.
#[must_use]
pub fn name_key(name: &str) -> String {
    let folded: String = name.nfkc().flat_map(char::to_lowercase).collect();
    let kept: String = folded
        .chars()
        .filter(|c| c.is_whitespace() || !is_invisible(*c))
        .collect();
    kept.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A name an account may take: a [`clean_name`] that is not also a built-in
/// bot's or a stand-in's usual name ("Bot 2", "机器人 3", "機器人 1") nor the name
/// a deleted player's games show.
///
/// # Errors
/// Why the name is refused (the server answers `invalid_name`).
pub fn clean_account_name(raw: &str) -> Result<String, TextError> {
    let name = clean_name(raw)?;
    let key = name_key(&name);
    let numbered = |prefix: &str| {
        key.strip_prefix(prefix)
            .map(str::trim_start)
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
    };
    if numbered("bot") || numbered("机器人") || numbered("機器人") || key == "deleted player"
    {
        return Err(TextError::Reserved);
    }
    Ok(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn account_names_meet_their_look_alikes_under_one_key() {
        assert_eq!(name_key("Ann"), name_key("aNN"));
        assert_eq!(name_key("Ａｎｎ"), "ann", "full-width forms");
        assert_eq!(name_key("ann  lee"), name_key("Ann Lee"));
        assert_eq!(name_key("an\u{200B}n"), "ann");
        assert_ne!(name_key("ann"), name_key("anne"));
        for bad in [
            "Bot 2",
            "bot3",
            "机器人 3",
            "機器人1",
            "Deleted Player",
            "x (easy bot)",
        ] {
            assert!(clean_account_name(bad).is_err(), "{bad}");
        }
        for good in ["Bottle", "bot builder", "Ann", "小明"] {
            assert!(clean_account_name(good).is_ok(), "{good}");
        }
    }

    #[test]
    fn names_are_normalized_and_restricted() {
        assert_eq!(clean_name("  Zoe\u{0301} ").unwrap(), "Zo\u{e9}");
        assert_eq!(clean_name("\u{200B}ann\u{FEFF}").unwrap(), "ann");
        assert_eq!(clean_name("robot (robot)").unwrap(), "robot (robot)");
        assert!(
            clean_name("👩\u{200D}🚀 pilot").is_ok(),
            "joiners inside emoji"
        );
        for bad in [
            "",
            "   ",
            "\u{200B}\u{200D}\u{FE0F}",
            "\u{202E}nimda",
            "a\u{2066}b",
            "a\u{7}b",
            "a\nb",
            "ann (random bot)",
            "Ann (Heuristic Bot)",
            "x(bot)",
            &"n".repeat(MAX_NAME_CHARS + 1),
        ] {
            assert!(clean_name(bad).is_err(), "{bad:?}");
        }
        assert!(clean_name(&"é".repeat(MAX_NAME_CHARS)).is_ok());
    }

    #[test]
    fn chat_refuses_control_and_bidi_characters() {
        assert_eq!(clean_chat(" cafe\u{0301} ").unwrap(), "caf\u{e9}");
        for bad in [
            "hi\nthere",
            "hi\rthere",
            "nul\u{0}",
            "\u{1b}[31mred",
            "tab\there",
            "\u{202D}x",
            "\u{200B}",
            "",
        ] {
            assert!(clean_chat(bad).is_err(), "{bad:?}");
        }
        assert!(clean_chat(&"c".repeat(MAX_CHAT_CHARS)).is_ok());
        assert!(clean_chat(&"c".repeat(MAX_CHAT_CHARS + 1)).is_err());
    }
}
