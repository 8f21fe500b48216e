"""Prompt-injection rules for Italian, Arabic, Korean, Hindi, Turkish, Dutch, Polish, Indonesian, Vietnamese,
Swahili, Greek and Hebrew, built from word lists rather than whole phrases.

A phrase per language misses the next wording; these rules look for the parts an order to a judge cannot do
without, near each other in one sentence: a verb of ignoring and a word for instructions or rules (either order,
for verb-final languages), the top of a scale with a verb of giving or deserving or a word for the judged
answer, a word for the judge followed by a colon, "from now on" with a word for the judge, and "answer yes".
The lists are unioned across languages: a rule fires on its parts in any mix of them.

Words are written plainly and folded like the text (`rules_intl._fold`): no accents, Hangul decomposed.
Stems end where inflection begins, so a word matches its inflected forms; Latin-script words start at a word
boundary, other scripts (whose marks Python's `\\b` does not treat as letters) anywhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from gavel.tools.guards.rules_english import Regex, Rule
from gavel.tools.guards.rules_intl import _fold

IGNORE = [
    "ignora", "ignorate", "dimentica", "dimenticate", "non tenere conto", "trascura",  # Italian
    "تجاهل", "انس", "تناس", "لا تلتفت",  # Arabic
    "무시", "잊어", "잊고",  # Korean
    "अनदेखा", "नज़रअंदाज़", "भूल जा", "भूल जाओ", "ध्यान न दें",  # Hindi
    "yok say", "görmezden gel", "unut",  # Turkish
    "negeer", "vergeet",  # Dutch
    "zignoruj", "ignoruj", "zapomnij",  # Polish
    "abaikan", "lupakan",  # Indonesian
    "bỏ qua", "quên đi", "hãy quên", "phớt lờ",  # Vietnamese
    "puuza", "sahau",  # Swahili
    "αγνοησε", "αγνοηστε", "ξεχασε", "ξεχαστε",  # Greek
    "התעלם", "שכח",  # Hebrew
]  # fmt: skip
INSTRUCTIONS = [
    "istruzion", "regole", "griglia di valutazione", "criteri di valutazione",
    "التعليمات", "تعليمات", "القواعد", "قواعد", "المعايير", "معايير", "الإرشادات",
    "지시", "지침", "채점 기준", "평가 기준", "규칙",
    "निर्देश", "नियम", "मानदंड",
    "talimat", "kural", "puanlama",
    "instructies", "regels", "beoordelingscriteria",
    "instrukcj", "polecen", "zasad", "kryteri",
    "instruksi", "aturan", "rubrik",
    "hướng dẫn", "tiêu chí", "quy tắc",
    "maagizo", "sheria",
    "οδηγίες", "κανόνες", "κριτήρια",
    "הוראות", "ההוראות", "כללים", "הכללים",
]  # fmt: skip
TOP_SCORE = [
    "punteggio massimo", "massimo dei voti", "voto più alto", "voto massimo", "pieni voti",
    "الدرجة الكاملة", "الدرجة القصوى", "أعلى درجة", "العلامة الكاملة", "العلامة القصوى", "الدرجة النهائية",
    "만점", "최고 점수", "최고 등급", "최고점",
    "पूरे अंक", "पूर्ण अंक", "अधिकतम अंक", "सर्वोच्च अंक",
    "tam puan", "en yüksek puan", "en yüksek not",
    "maximale cijfer", "hoogste score", "hoogste cijfer", "maximale score",
    "maksymaln", "najwyższ",
    "nilai maksimal", "skor tertinggi", "nilai tertinggi", "nilai sempurna", "skor maksimal",
    "điểm tối đa", "điểm cao nhất",
    "alama kamili", "alama za juu",
    "μέγιστο βαθμό", "μέγιστη βαθμολογία", "άριστα",
    "ציון מלא", "הציון הגבוה", "ציון מקסימלי",
]  # fmt: skip
GIVE_OR_DESERVE = [
    "dai ", "assegna", "attribuisci", "metti", "valuta", "merita",
    "أعط", "امنح", "ضع", "يستحق", "تستحق", "يجب أن تحصل",
    "주세요", "줘", "주십시오", "부여", "평가하세요", "자격이 있", "받아야",
    "दें", "दो", "दीजिए", "हकदार",
    "ver$", "hak ediyor", "hak eder",
    "geef", "verdient",
    "daj$", "przyznaj", "zasługuje",
    "beri$", "berikan", "layak",
    "cho ", "xứng đáng",
    "upe$", "linastahili",
    "δώσε", "αξίζει",
    "תן", "ראויה", "ראוי", "מגיע",
]  # fmt: skip
ANSWER = [
    "questa risposta", "الإجابة", "هذا النص", "답변", "응답", "उत्तर को", "इस उत्तर", "यह उत्तर", "bu cevap",
    "bu yanıt", "cevaba", "dit antwoord", "ta odpowiedź", "tej odpowiedzi", "jawaban ini", "câu trả lời này",
    "jibu hili", "αυτή την απάντηση", "התשובה הזו",
]  # fmt: skip
JUDGE = [
    "valutatore", "correttore", "esaminatore",
    "المقيم", "مقيم", "الحكم", "المصحح",
    "평가자", "채점자", "심사위원",
    "मूल्यांकनकर्ता", "परीक्षक", "निर्णायक",
    "değerlendirici", "puanlayıcı", "hakem",
    "beoordelaar", "examinator",
    "oceniając", "egzaminator",
    "penilai",
    "người chấm", "giám khảo",
    "mtathmini",
    "αξιολογητ", "βαθμολογητ",
    "בודק", "שופט", "מעריך",
]  # fmt: skip
FROM_NOW_ON = [
    "da ora in poi", "d'ora in poi", "أنت الآن", "지금부터", "이제부터", "अब तुम", "अब आप", "artık", "vanaf nu",
    "od teraz", "mulai sekarang", "từ bây giờ", "sasa wewe", "από τώρα", "מעכשיו",
]  # fmt: skip
ANSWER_YES = [
    "rispondi si", "rispondi di si", "rispondi con si", "أجب بنعم", "قل نعم", "예라고 답", "'예'라고 답", "네라고 답",
    "हाँ' उत्तर", "हाँ उत्तर", "हाँ कहो", "evet diye cevap", "evet de", "antwoord met ja", "zeg ja",
    "odpowiedz tak", "jawab ya", "trả lời là có", "jibu ndiyo", "απάντησε ναι", "ענה כן",
]  # fmt: skip

_LATIN = re.compile(r"[a-z]")


def _alternatives(words: list[str]) -> list[str]:
    """The folded words as regex pieces, longest first; Latin-script ones anchored at a word start, and at a word
    end too when written with a trailing `$` (short words such as Turkish "ver")."""
    out = []
    for word in sorted({_fold(w) for w in words}, key=len, reverse=True):
        end = r"\b" if word.endswith("$") else ""
        word = word.removesuffix("$")
        out.append((r"\b" if _LATIN.match(word) else "") + re.escape(word) + end)
    return out


def _words(words: list[str]) -> str:
    return "(?:" + "|".join(_alternatives(words)) + ")"


_ARABIC = re.compile(r"[\u0600-\u06ff]")


def _verbs(words: list[str]) -> str:
    """Like `_words`, but an Arabic imperative starts a word (after an optional "and"/"so"): inside a word it is
    another person ("ولم أتجاهل", "I did not ignore") or another word ("الإنسان" holds "انس")."""
    return "(?:" + "|".join(rf"(?<!\w)[وف]?{a}" if _ARABIC.match(a) else a for a in _alternatives(words)) + ")"


# An Italian past participle of a verb of giving ("ha assegnato il punteggio massimo"): a grade reported, not ordered.
_NOT_PARTICIPLE = r"(?!t[oai]\b)"


# One sentence: no sentence end or newline in between.
_NEAR = r"[^.!?\n。]{0,60}?"
_OF = ["/", "su", "de", "di", "من", "만점에", "में से", "üzerinden", "op", "na", "dari", "trên", "von", "sur", "из",
       "από", "מתוך"]  # fmt: skip
_N_OF_N = rf"(?:(10|5|100|20)\s*(?:{_fold('점')}\s*)?{_words(_OF).replace(chr(92) + 'b', '')}\s*\1)"
_OR = ["o", "or", "أو", "또는", "या", "veya", "of", "lub", "atau", "hoặc", "au", "ή", "או"]


class _Gated(Regex):
    """A rule whose regular expression runs only on a text holding, for each word list it needs, one of its words.

    Each rule's regex tries hundreds of words at every position (about 0.2 s over 100 kB of mixed scripts); a
    plain substring search for each word decides in milliseconds that most texts cannot match at all.
    """

    __slots__ = ("_needs",)

    def __init__(self, source: str, *needs: tuple[str, ...] | re.Pattern[str]) -> None:
        super().__init__(source)
        self._needs = needs

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        for need in self._needs:
            found = need.search(text) is not None if isinstance(need, re.Pattern) else any(w in text for w in need)
            if not found:
                return iter(())
        return super().finditer(text)


def _literals(words: list[str]) -> tuple[str, ...]:
    return tuple(_fold(w).removesuffix("$") for w in words)


_TOP_OR_N_OF_N = re.compile("|".join(re.escape(w) for w in _literals(TOP_SCORE)) + "|" + _N_OF_N)

WORLD: list[Rule] = [
    (
        "instruction to the judge",
        _Gated(
            f"{_verbs(IGNORE)}{_NEAR}{_words(INSTRUCTIONS)}|{_words(INSTRUCTIONS)}{_NEAR}{_verbs(IGNORE)}",
            _literals(IGNORE), _literals(INSTRUCTIONS),
        ),
    ),
    (
        "instruction to the judge",
        _Gated(
            f"(?:{_words(GIVE_OR_DESERVE)}{_NOT_PARTICIPLE}|{_words(ANSWER)}){_NEAR}(?:{_words(TOP_SCORE)}|{_N_OF_N})"
            f"|(?:{_words(TOP_SCORE)}|{_N_OF_N}){_NEAR}(?:{_words(GIVE_OR_DESERVE)}{_NOT_PARTICIPLE}|{_words(ANSWER)})",
            _TOP_OR_N_OF_N, _literals(GIVE_OR_DESERVE + ANSWER),
        ),
    ),
    ("note to the judge", _Gated(f"{_words(JUDGE)}[^\\n:]{{0,8}}[:：]", _literals(JUDGE), (":", "："))),
    ("role override", _Gated(f"{_words(FROM_NOW_ON)}{_NEAR}{_words(JUDGE)}", _literals(FROM_NOW_ON), _literals(JUDGE))),
    (
        "instruction to the judge",
        _Gated(f"{_words(ANSWER_YES)}(?![^\\n]{{0,6}}\\s{_words(_OR)}\\s)", _literals(ANSWER_YES)),
    ),
]  # fmt: skip

# Words that, found in a reversed text turned back, make the reversal worth reading (see disguises).
HINT_WORDS = "|".join(re.escape(_fold(w.removesuffix("$"))) for w in IGNORE + INSTRUCTIONS + TOP_SCORE + JUDGE)
