//! What a language model answered, made into a summary or refused: the
//! reasoning blocks of reasoning models taken out, then the answer checked
//! (not empty, not far past its length, not a refusal, in the article's
//! language). Written here: these are this project's rules for accepting
//! a summary.

use crate::SummaryLength;

/// Tags reasoning models wrap their thinking in, inside the content
/// (DeepSeek-R1 and Qwen3 use `think`).
const REASONING_TAGS: [&str; 3] = ["think", "thinking", "reasoning"];

/// Openings of a refusal or of a reply about the task instead of a summary.
const REFUSALS: [&str; 9] = [
    "i'm sorry",
    "i am sorry",
    "sorry,",
    "i cannot",
    "i can't",
    "i can not",
    "i'm unable",
    "i am unable",
    "as an ai",
];

/// Words a summary of `l` may have before it is too long: 1.5 times its
/// length (a sentence counted as 30 words), and a little slack.
pub fn most_words(l: &SummaryLength) -> usize {
    let target = l.words.unwrap_or_else(|| l.sentences.unwrap_or(1) * 30);
    target * 3 / 2 + 10
}

/// `content` without its reasoning blocks, trimmed. A block never closed
/// is reasoning to the end: nothing of it is kept.
pub fn strip_reasoning(content: &str) -> String {
    let mut out = content.to_string();
    for tag in REASONING_TAGS {
        let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
        while let Some(start) = out.find(&open) {
            match out[start..].find(&close) {
                Some(end) => out.replace_range(start..start + end + close.len(), ""),
                None => out.truncate(start),
            }
        }
        // A close without an open: the reasoning began before the content.
        if let Some(end) = out.find(&close) {
            out.replace_range(..end + close.len(), "");
        }
    }
    out.trim().to_string()
}

/// The answer as a summary of `l` for an article written in `text`, or why
/// it is not one.
pub fn accept(content: &str, l: &SummaryLength, text: &str) -> Result<String, &'static str> {
    let answer = strip_reasoning(content);
    // A label some models put first ("Summary: ...").
    let answer = answer
        .strip_prefix("Summary:")
        .map_or(answer.as_str(), str::trim_start)
        .to_string();
    if answer.is_empty() {
        return Err("empty answer");
    }
    let lower = answer.to_lowercase();
    if REFUSALS.iter().any(|r| lower.starts_with(r)) {
        return Err("refusal");
    }
    if gleaner_text::word_count(&answer) > most_words(l) {
        return Err("too long");
    }
    if !same_language(&answer, text) {
        return Err("wrong language");
    }
    Ok(answer)
}

/// Whether two texts are in one language, when both can be told (whatlang
/// says it is sure); texts it cannot tell pass.
fn same_language(a: &str, b: &str) -> bool {
    let sure = |t: &str| {
        whatlang::detect(t)
            .filter(|i| i.is_reliable())
            .map(|i| i.lang())
    };
    match (sure(a), sure(b)) {
        (Some(x), Some(y)) => x == y,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(n: usize) -> SummaryLength {
        SummaryLength {
            name: "w".into(),
            sentences: None,
            words: Some(n),
        }
    }

    const TEXT: &str = "The harbour bridge reopened on Monday after eight months of repairs. \
        Engineers replaced the corroded suspension cables and the city council said tolls would rise.";

    #[test]
    fn reasoning_is_taken_out() {
        assert_eq!(
            strip_reasoning("<think>Let me see.</think>\nThe bridge reopened."),
            "The bridge reopened."
        );
        assert_eq!(
            strip_reasoning("Plan</think> The bridge reopened."),
            "The bridge reopened."
        );
        assert_eq!(strip_reasoning("<think>never closed"), "");
        assert_eq!(
            strip_reasoning("<thinking>a</thinking>B<think>c</think>"),
            "B"
        );
    }

    #[test]
    fn answers_are_checked() {
        let l = words(20);
        assert_eq!(
            accept("Summary: The bridge reopened after repairs.", &l, TEXT),
            Ok("The bridge reopened after repairs.".to_string())
        );
        assert_eq!(accept("<think>hm</think>  ", &l, TEXT), Err("empty answer"));
        assert_eq!(
            accept("I'm sorry, I can't help with that.", &l, TEXT),
            Err("refusal")
        );
        let long = "word ".repeat(60);
        assert_eq!(accept(&long, &l, TEXT), Err("too long"));
        let german =
            "Die Brücke wurde am Montag nach acht Monaten Reparaturarbeiten wieder eröffnet, \
            und die Stadt erhöht die Gebühren für alle Autofahrer.";
        assert_eq!(accept(german, &words(40), TEXT), Err("wrong language"));
    }
}
