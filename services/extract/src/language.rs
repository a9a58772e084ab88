//! The article's language as an ISO 639-1 code: the page's declared one
//! (`<html lang>`, `content-language`, `og:locale`) reduced to its primary
//! subtag when that is a real ISO 639-1 code, else whatlang's detection
//! from the text (about 70 languages), mapped from ISO 639-3 by isolang.
//! The declared language wins: a page says what it is more often right
//! than a statistical guess on a short text.

use isolang::Language;

/// Enough text for a confident guess; more only costs time.
const SAMPLE_CHARS: usize = 4000;

/// The article's language: declared if valid, else detected; `None` when
/// neither is sure.
pub fn of_article(declared: Option<&str>, text: &str) -> Option<String> {
    declared.and_then(iso_639_1).or_else(|| detect(text))
}

/// The ISO 639-1 code of a language tag such as `en-US`, `pt_BR` or `FR`.
fn iso_639_1(tag: &str) -> Option<String> {
    let primary = tag.trim().split(['-', '_']).next()?.to_ascii_lowercase();
    Language::from_639_1(&primary).map(|_| primary)
}

/// whatlang's guess, only when it calls itself reliable.
pub fn detect(text: &str) -> Option<String> {
    let end = text
        .char_indices()
        .nth(SAMPLE_CHARS)
        .map_or(text.len(), |(i, _)| i);
    let info = whatlang::detect(&text[..end]).filter(|i| i.is_reliable())?;
    let code = info.lang().code();
    // Two individual languages whatlang names whose ISO 639-1 code belongs
    // to their macrolanguage: Mandarin (zh) and Iranian Persian (fa).
    let code = match code {
        "cmn" => "zho",
        "pes" => "fas",
        c => c,
    };
    Language::from_639_3(code)?.to_639_1().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_tags_reduce_to_iso_639_1() {
        assert_eq!(of_article(Some("en-US"), "").as_deref(), Some("en"));
        assert_eq!(of_article(Some("pt_BR"), "").as_deref(), Some("pt"));
        assert_eq!(of_article(Some("FR"), "").as_deref(), Some("fr"));
        // Not a language: the text decides (here, too short to say).
        assert_eq!(of_article(Some("x-default"), "ok"), None);
    }

    #[test]
    fn every_language_of_the_text_is_detected() {
        let samples = [
            ("en", "The committee met on Tuesday to discuss the new budget, and most members agreed that the spending plan would need further changes before the vote."),
            ("fr", "Le comité s'est réuni mardi pour discuter du nouveau budget, et la plupart des membres ont convenu que le plan de dépenses devrait encore être modifié avant le vote."),
            ("de", "Der Ausschuss traf sich am Dienstag, um den neuen Haushalt zu besprechen, und die meisten Mitglieder waren sich einig, dass der Ausgabenplan vor der Abstimmung geändert werden muss."),
            ("es", "El comité se reunió el martes para discutir el nuevo presupuesto, y la mayoría de los miembros acordaron que el plan de gastos necesitaría más cambios antes de la votación."),
            ("pt", "O comitê se reuniu na terça-feira para discutir o novo orçamento, e a maioria dos membros concordou que o plano de gastos precisaria de mais mudanças antes da votação."),
            ("it", "Il comitato si è riunito martedì per discutere il nuovo bilancio, e la maggior parte dei membri ha convenuto che il piano di spesa avrebbe bisogno di ulteriori modifiche prima del voto."),
            ("nl", "De commissie kwam dinsdag bijeen om de nieuwe begroting te bespreken, en de meeste leden waren het erover eens dat het uitgavenplan voor de stemming verder moest worden aangepast."),
            ("ru", "Комитет собрался во вторник, чтобы обсудить новый бюджет, и большинство членов согласились, что план расходов потребует дальнейших изменений перед голосованием."),
            ("ar", "اجتمعت اللجنة يوم الثلاثاء لمناقشة الميزانية الجديدة، واتفق معظم الأعضاء على أن خطة الإنفاق ستحتاج إلى مزيد من التغييرات قبل التصويت."),
            ("he", "הוועדה התכנסה ביום שלישי כדי לדון בתקציב החדש, ורוב החברים הסכימו שתוכנית ההוצאות תצטרך שינויים נוספים לפני ההצבעה."),
            ("zh", "委员会周二开会讨论新的预算，大多数成员同意在投票之前需要对支出计划作进一步修改。"),
            ("ja", "委員会は火曜日に新しい予算について話し合うために集まり、ほとんどのメンバーは投票の前に支出計画をさらに変更する必要があることに同意した。"),
            ("ko", "위원회는 화요일에 새 예산을 논의하기 위해 모였으며 대부분의 위원들은 투표 전에 지출 계획을 더 수정해야 한다는 데 동의했다."),
            ("pl", "Komisja zebrała się we wtorek, aby omówić nowy budżet, a większość członków zgodziła się, że plan wydatków będzie wymagał dalszych zmian przed głosowaniem."),
            ("tr", "Komite yeni bütçeyi görüşmek için salı günü toplandı ve üyelerin çoğu harcama planının oylamadan önce daha fazla değişikliğe ihtiyaç duyacağı konusunda anlaştı."),
            ("cs", "Výbor se v úterý sešel, aby projednal nový rozpočet, a většina členů se shodla, že plán výdajů bude před hlasováním vyžadovat další změny."),
        ];
        for (want, text) in samples {
            assert_eq!(detect(text).as_deref(), Some(want), "{text}");
            assert_eq!(of_article(None, text).as_deref(), Some(want));
        }
    }
}
