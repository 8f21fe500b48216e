"""Deterministic defences for untrusted text: delimiter neutralization and prompt-injection detection.

The engine puts every untrusted block (a judged answer, passages, a question) between lines
`<<<BEGIN label nonce>>>` and `<<<END label nonce>>>`. `neutralize` makes sure the text inside can never
contain a run that reads like those delimiters. `detect_injection` finds instructions aimed at the judge,
so a tool can flag them and refuse to approve on the model's word alone, whatever the model says.

Both are pure functions with no model involved: the model is the thing being attacked, so it cannot be
the only line of defence.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

PROMPT_INJECTION_FLAG = "prompt_injection_suspected"

# -- neutralize ---------------------------------------------------------------------------------------

# Characters a reader (human or model) takes for an angle bracket. A run of three of any mix of them
# could pass for the engine's delimiters, so each side is treated as one class.
_LEFT_ANGLES = "<＜﹤‹«〈⟨〈《❮❬⟪˂ᐸ≺⧼"
_RIGHT_ANGLES = ">＞﹥›»〉⟩〉》❯❭⟫˃ᐳ≻⧽"
# Invisible characters that could be slipped between two brackets so the run no longer looks like one
# to a naive check but still renders (and tokenizes) as one.
_INVISIBLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff"
)
_INV = f"[{_INVISIBLE}]"
_ANGLE_RUN = re.compile(
    rf"[{re.escape(_LEFT_ANGLES)}](?:{_INV}*[{re.escape(_LEFT_ANGLES)}]){{2,}}"
    rf"|[{re.escape(_RIGHT_ANGLES)}](?:{_INV}*[{re.escape(_RIGHT_ANGLES)}]){{2,}}"
)
# C0 controls except tab and newline, DEL and the C1 block. Carriage returns become newlines instead
# (a bare CR can visually overwrite a line in a terminal log; as a newline it stays readable).
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# Surrogate code points: in a Python str they are always unpaired (a JSON "\ud800" escape, a surrogateescape'd
# byte). No model backend can encode them (llama.cpp's JSON parser rejects them with a RuntimeError), so each
# becomes U+FFFD, as a UTF-8 decoder would render it.
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _space_out(match: re.Match[str]) -> str:
    brackets = [ch for ch in match.group(0) if ch not in _INVISIBLE]
    return " ".join(brackets)


def neutralize(text: str) -> str:
    """`text` with no run of three angle brackets (or look-alikes), no control characters and no lone surrogates.

    A run such as `<<<`, `＜＜＜`, `«‹<` or `<\u200b<<` becomes its brackets separated by spaces
    (`< < <`), which keeps the text readable and can never read as a delimiter. Applying it twice
    changes nothing more.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROL.sub("", text)
    text = _SURROGATE.sub("\ufffd", text)
    return _ANGLE_RUN.sub(_space_out, text)


# -- detect_injection ---------------------------------------------------------------------------------

_ANGLE_FOLD = str.maketrans({**dict.fromkeys(_LEFT_ANGLES, "<"), **dict.fromkeys(_RIGHT_ANGLES, ">")})


def normalize_for_matching(text: str) -> str:
    """NFKC, no invisible/format characters, case-folded, accents removed, brackets folded to ASCII.

    Used only to *match*: the text shown to anyone is never this.
    """
    text = unicodedata.normalize("NFKC", text)
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf" and ch not in _INVISIBLE)
    text = text.translate(_ANGLE_FOLD).casefold()
    decomposed = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    # Collapse horizontal whitespace so "ignore   previous" and "ignore\tprevious" match alike.
    return re.sub(r"[^\S\n]+", " ", text)


# Where an imperative can start: the beginning of a sentence or line, or after a connective. Used by the
# rules whose verb is also an ordinary indicative ("critics rate it a perfect 10", "si el usuario ignora
# las instrucciones") so that only commands addressed to the reader are flagged.
_CMD = (
    r"(?:^|[.!?;:\n(\"'*>-]\s*|,\s*|\b(?:and|then|now|just|please|so|instead|e|entao|agora|y|luego|ahora"
    r"|et|puis|und|dann|jetzt|bitte|por favor|s'il vous plait)\s+)"
)

_JUDGE_NOUNS = (
    r"(?:judge|grader|evaluator|assessor|reviewer|assistant|ai|model|bot|llm|chatbot|dan"
    r"|juiz|avaliador|assistente|juez|evaluador|asistente|juge|evaluateur|correcteur"
    r"|richter|bewerter|gutachter|pruefer|prufer|assistent|ki)"
)
_TOP_SCORE = (
    r"(?:10(?:\s*/\s*10)?|10\.0|5(?:\s*/\s*5)?|5\.0|1\.0|1,0|100(?:\s*%|\s*/\s*100)?|20\s*/\s*20"
    r"|(?:a\s+)?perfect(?:\s+(?:score|10|5))?|full marks|top marks|maximum|max|the maximum|the highest"
    r"|highest(?: possible)?(?: score| rating| grade)?|an? (?:10|5|a\+|perfect score))"
)

# What a command to the judge names as the thing to score: every judged field of every tool (an answer, an
# assessment, a candidate's idea...), in each language the rules cover.
_EN_SUBJECT = (
    r"(?:answer|response|text|output|assessment|summary|report|essay|idea|candidate|submission|proposal"
    r"|document|entry)"
)
_PT_SUBJECT = r"resposta|texto|avaliacao|ideia|resumo|relatorio|proposta|candidato|candidata"
_ES_SUBJECT = r"respuesta|texto|evaluacion|idea|resumen|informe|propuesta|candidato|candidata"
_FR_SUBJECT = r"reponse|texte|evaluation|idee|resume|rapport|proposition|candidat|candidate"
_DE_SUBJECT = r"antwort|text|bewertung|idee|zusammenfassung|bericht|vorschlag"

# (rule label, pattern over the normalized text). Patterns use bounded repetitions only, so matching
# stays linear on the longest allowed input.
_RULES: list[tuple[str, re.Pattern[str]]] = [
    (
        "instruction to the judge",
        re.compile(
            r"\b(?:ignore|disregard|forget|override|bypass|skip|drop)\s+(?:(?:all|any|of|the|your|these|those|my|every)\s+){0,4}"
            r"(?:previous|prior|above|earlier|preceding|foregoing|former|original|initial|system|evaluation|grading"
            r"|judging|scoring|given)\s+(?:\w+\s+)?(?:instructions?|prompts?|rules?|directions?|guidelines?|criteria"
            r"|messages?|context|commands?|orders?)\b"
        ),
    ),
    (
        "instruction to the judge",
        re.compile(
            r"\b(?:ignore|disregard|forget)\s+(?:all|everything)\s+(?:(?:you\s+were|you've\s+been|you\s+have\s+been)"
            r"\s+(?:told|given)|(?:of\s+)?(?:the\s+|your\s+)?(?:instructions?|rules?|above))"
        ),
    ),
    (
        "instruction to the judge",
        re.compile(
            r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:the\s+|your\s+|this\s+|any\s+)?"
            r"(?:rubric|grading criteria|scoring criteria|evaluation criteria|scoring rules|grading rules)\b"
        ),
    ),
    (
        "role override",
        re.compile(
            rf"\byou\s+are\s+(?:now|no\s+longer)\s+(?:(?:a|an|the|my|our|acting\s+as(?:\s+an?)?)\s+)?(?:\w+\s+){{0,3}}?"
            rf"{_JUDGE_NOUNS}\b|\byou\s+are\s+now\s+(?:in\s+\w+\s+mode|free|unrestricted|jailbroken|acting\s+as)"
            rf"|\bfrom\s+now\s+on,?\s+you\s+(?:are|will|must|should|shall)\b"
            rf"|\b(?:act|behave|pretend)\s+as\s+(?:if\s+you\s+were\s+)?(?:a|an|the)\s+(?:\w+\s+){{0,2}}?{_JUDGE_NOUNS}\b"
        ),
    ),
    (
        "instruction to the judge",
        re.compile(
            rf"{_CMD}(?:rate|score|grade|mark|evaluate|judge|assess)\s+(?:this|it|me|the\s+{_EN_SUBJECT}"
            rf"|this\s+(?:one|{_EN_SUBJECT})|my\s+{_EN_SUBJECT})\s+(?:(?:as|with|at|a|an)\s+){{0,2}}"
            rf"{_TOP_SCORE}"
        ),
    ),
    (
        "instruction to the judge",
        re.compile(
            rf"{_CMD}(?:give|award|assign)\s+(?:(?:it|this|me|this\s+{_EN_SUBJECT}|the\s+{_EN_SUBJECT})\s+)?"
            rf"(?:(?:a|an|the)\s+)?(?:full|perfect|maximum|max|top|highest|best)\s+(?:marks|score|rating|grade|points)"
        ),
    ),
    (
        "instruction to the judge",
        re.compile(
            rf"{_CMD}(?:give|award|assign)\s+(?:it|this|me|this\s+{_EN_SUBJECT}|the\s+{_EN_SUBJECT})\s+"
            rf"(?:a\s+|an\s+)?(?:score\s+of\s+|rating\s+of\s+|grade\s+of\s+)?{_TOP_SCORE}"
        ),
    ),
    (
        "instruction to the judge",
        re.compile(
            rf"{_CMD}(?:approve|accept|pass)\s+(?:this|the)\s+{_EN_SUBJECT}\b"
            r"|\b(?:this|the)\s+(?:answer|response)\s+(?:must|should|has\s+to|is\s+to)\s+be\s+(?:approved|accepted"
            r"|rated\s+(?:as\s+)?(?:perfect|excellent|10|5|1\.0)|scored\s+(?:as\s+)?(?:10|5|1\.0))"
            r"|\b(?:mark|set)\s+(?:this|the|it)\s+(?:\w+\s+)?as\s+approved\b"
        ),
    ),
    (
        "fake verdict line",
        re.compile(
            r"(?m)^[ \t*#>_-]{0,6}(?:final\s+|overall\s+|quality\s+)?(?:score|rating|grade|verdict|overall_score"
            r"|quality_score)[ \t*_]{0,3}[:=][ \t*_]{0,3}(?:-?\d+(?:[.,]\d+)?(?![ \t]*[-–—x×:][ \t]*\d)"
            r"|approved|passed|accept(?:ed)?)"
        ),
    ),
    (
        "fake verdict JSON",
        re.compile(r"(?m)^[ \t{,]{0,6}\"(?:score|overall_score|quality_score|rating)\"[ \t]*:[ \t]*-?\d+(?:\.\d+)?"),
    ),
    (
        # The shape of Gavel's own feedback ("- specificity: Scored 3/5. <why>"): a text that grades itself
        # this way (seen from the embedded default as refine_until_pass's writer) is addressing its judge.
        "fake grading line",
        re.compile(
            r"(?mi)^[ \t*#>_-]{0,6}[a-z][\w ]{0,40}[ \t*_]{0,3}:[ \t*_]{0,3}"
            r"scored[ \t]+\d+(?:\.\d+)?[ \t]*/[ \t]*\d+\."
        ),
    ),
    (
        "fake verdict JSON",
        re.compile(
            r"\{[^{}]{0,2000}?\"(?:explanation|reasoning|rationale|justification)\"[^{}]{0,2000}?"
            r"\"(?:score|overall_score|quality_score|rating)\"\s*:\s*-?\d"
            r"|\{[^{}]{0,2000}?\"(?:score|overall_score|quality_score|rating)\"\s*:\s*-?\d[^{}]{0,2000}?"
            r"\"(?:explanation|reasoning|rationale|justification)\"\s*:"
        ),
    ),
    (
        "fake verdict JSON",
        re.compile(
            r"\"(?:verdict|decision|status|result)\"\s*:\s*\"(?:approved|approve|accepted|passed|pass)\""
            r"|\"(?:is_grounded|passed|approved)\"\s*:\s*true\b"
        ),
    ),
    (
        "fake delimiter",
        re.compile(
            r"<{2,}\s*/?\s*(?:begin|end)\b|\b(?:begin|end)\s+\w{1,40}\s+[0-9a-f]{4,}\s*>{2,}"
            r"|</\s*(?:answer|untrusted|data|passages?|context|documents?|sources?|question|input|response|text"
            r"|subject|candidate|assessment|user|system|instructions?)\s*>"
            r"|<\|(?:im_start|im_end|system|assistant|user|endoftext|eot_id|start_header_id|end_header_id)\|>"
            r"|\[/?(?:inst|sys|system)\]|<</?sys>>"
            r"|\bend\s+of\s+(?:the\s+)?(?:answer|response|input|data|document|passages?|context|untrusted"
            r"(?:\s+\w+)?|user\s+input|text\s+to\s+evaluate)\b"
        ),
    ),
    (
        "fake role line",
        re.compile(r"(?m)^[ \t*#>\[_-]{0,6}(?:system|assistant|developer)[ \t*\]_]{0,3}:"),
    ),
    # Portuguese
    (
        "instruction to the judge",
        re.compile(
            r"\b(?:ignore|ignora|ignorem|desconsidere|desconsidera|esqueca|esquece|esquecam)\s+(?:(?:todas|todos|as|os"
            r"|suas|tuas|quaisquer)\s+){0,3}(?:instrucoes|regras|orientacoes|diretrizes|ordens|comandos)\s+"
            r"(?:anteriores|acima|previas|precedentes|do\s+sistema|originais|recebidas)"
            rf"|{_CMD}(?:ignore|ignora|desconsidere|esqueca)\s+(?:(?:todas|as|suas)\s+){{0,3}}"
            r"(?:instrucoes|regras|orientacoes|diretrizes|a\s+rubrica)"
        ),
    ),
    (
        "instruction to the judge",
        re.compile(
            rf"{_CMD}(?:de|da|atribua|atribui|coloque|ponha|conceda|marque)\s+"
            r"(?:(?:a|esta|essa|para|uma|um|lhe|" + _PT_SUBJECT + r")\s+){0,4}"
            r"(?:nota|pontuacao)\s+(?:maxima|10|dez|5|cinco"
            r"|1\.0|1,0|100|perfeita)\b"
            rf"|{_CMD}(?:avalie|avalia|classifique|pontue)\s+(?:(?:a|esta|essa|{_PT_SUBJECT})\s+){{0,3}}"
            r"com\s+(?:(?:a|uma|um|nota)\s+){0,2}(?:maxima|10|dez|5|cinco|1\.0|1,0|100|perfeita)\b"
            rf"|{_CMD}aprove\s+(?:esta|essa|a)\s+resposta"
        ),
    ),
    # Spanish
    (
        "instruction to the judge",
        re.compile(
            r"\b(?:ignora|ignore|ignoren|olvida|olvide|olviden|descarta|descarte)\s+(?:(?:todas|todos|las|los|tus|sus"
            r"|cualquier)\s+){0,3}(?:instrucciones|reglas|indicaciones|directrices|ordenes)\s+"
            r"(?:anteriores|previas|de\s+arriba|del\s+sistema|originales|precedentes)"
            rf"|{_CMD}(?:ignora|ignore|ignoren|olvida|olvide)\s+(?:(?:todas|las|tus|sus)\s+){{0,3}}"
            r"(?:instrucciones|reglas|indicaciones|la\s+rubrica)"
        ),
    ),
    (
        "instruction to the judge",
        re.compile(
            rf"{_CMD}(?:da|dale|de|dele|pon|ponle|asigna|asignale|otorga|otorgale)\s+"
            r"(?:(?:a|esta|esa|la|un|una|el|" + _ES_SUBJECT + r")\s+){0,4}(?:nota|puntuacion|calificacion|puntaje)\s+"
            r"(?:de\s+)?(?:10|diez|5|cinco|1\.0|1,0|100|maxima|perfecta)\b"
            rf"|{_CMD}(?:califica|calificala|puntua|puntuala|evalua|evaluala)\s+"
            r"(?:(?:a|esta|esa|la|" + _ES_SUBJECT + r")\s+){0,3}"
            r"con\s+(?:(?:un|una|la|nota)\s+){0,2}(?:10|diez|5|cinco|1\.0|1,0|100|maxima|perfecta)\b"
            rf"|{_CMD}aprueba\s+(?:esta|esa|la)\s+respuesta"
        ),
    ),
    # French
    (
        "instruction to the judge",
        re.compile(
            r"\b(?:ignorez|ignore|ignorer|oubliez|oublie|oublier)\s+(?:(?:toutes|tous|les|vos|tes|des)\s+){0,3}"
            r"(?:instructions|consignes|regles|directives|ordres)\s+(?:precedentes|anterieures|ci-dessus|du\s+systeme"
            r"|d'origine|initiales|recues)"
            rf"|{_CMD}(?:ignorez|ignore|oubliez|oublie)\s+(?:(?:toutes|les|vos|tes)\s+){{0,3}}"
            r"(?:instructions|consignes|regles|la\s+grille)"
        ),
    ),
    (
        "instruction to the judge",
        re.compile(
            rf"{_CMD}(?:donnez|donne|attribuez|attribue|mettez|mets|accordez|accorde)(?:-lui|-la|-moi)?\s+"
            r"(?:(?:lui|a|cette|la|une|un|le|" + _FR_SUBJECT + r")\s+){0,4}(?:note|score)\s+(?:de\s+)?"
            r"(?:10(?:\s*/\s*10)?|20\s*/\s*20|5(?:\s*/\s*5)?|1\.0|1,0|maximale|maximum|parfaite)"
            rf"|{_CMD}(?:donnez|donne|attribuez|attribue|mettez|mets|accordez|accorde)(?:-lui|-la|-moi)?\s+"
            r"(?:(?:lui|a|cette|" + _FR_SUBJECT + r")\s+){0,3}"
            r"(?:10\s*/\s*10|20\s*/\s*20|5\s*/\s*5|la\s+note\s+maximale)"
            rf"|{_CMD}(?:notez|evaluez)\s+(?:(?:cette|la|{_FR_SUBJECT})\s+){{0,2}}(?:a\s+|avec\s+)?"
            r"(?:10\s*/\s*10|20\s*/\s*20|5\s*/\s*5|la\s+note\s+maximale)"
            rf"|{_CMD}approuvez\s+(?:cette|la)\s+reponse"
        ),
    ),
    (
        "role override",
        re.compile(
            rf"\b(?:voce|tu)\s+(?:agora\s+e|e\s+agora|agora\s+es|es\s+agora)\s+(?:\w+\s+){{0,3}}?{_JUDGE_NOUNS}\b"
            rf"|\bahora\s+eres\s+(?:\w+\s+){{0,3}}?{_JUDGE_NOUNS}\b"
            rf"|\b(?:tu\s+es|vous\s+etes)\s+(?:maintenant|desormais)\s+(?:\w+\s+){{0,3}}?{_JUDGE_NOUNS}\b"
            rf"|\b(?:du\s+bist|sie\s+sind)\s+(?:jetzt|nun|ab\s+sofort)\s+(?:\w+\s+){{0,3}}?{_JUDGE_NOUNS}\b"
        ),
    ),
    # German
    (
        "instruction to the judge",
        re.compile(
            r"\b(?:ignoriere|ignorier|ignorieren\s+sie|ignoriert|vergiss|vergessen\s+sie|missachte|missachten\s+sie)\s+"
            r"(?:(?:alle|die|deine|ihre|jegliche|samtliche|bisherigen|vorherigen|obigen|vorangegangenen|fruheren"
            r"|vorigen)\s+){0,4}(?:anweisungen|instruktionen|regeln|vorgaben|befehle|bewertungskriterien|rubrik)\b"
        ),
    ),
    (
        "instruction to the judge",
        re.compile(
            rf"{_CMD}(?:gib|geben\s+sie|vergib|vergeben\s+sie|bewerte|bewerten\s+sie|benote|benoten\s+sie)\s+"
            r"(?:(?:dieser|diese|der|die|das|dem|ihr|ihm|mit|eine|einer|den|volle|voller|" + _DE_SUBJECT + r")\s+){0,5}"
            r"(?:bestnote|hochstnote|volle\s+punktzahl|voller\s+punktzahl|hochste\s+punktzahl|hochsten\s+punktzahl"
            r"|10(?:\s*/\s*10)?|10\s+punkte|5\s+punkte|1\.0|note\s+1\b|einer\s+1\b)"
        ),
    ),
]

_HTML_COMMENT = re.compile(r"<!--(.{0,4000}?)(?:-->|\Z)", re.DOTALL)
_MD_COMMENT = re.compile(r"(?m)^\[(?:[^\]\n]{0,40})\]:\s*(?:#|<>)\s*[(\"'](.{0,2000}?)[)\"']\s*$")
# A comment that talks to the evaluator is suspicious even without a full instruction phrase: ordinary
# hidden comments in an answer have no reason to mention the judge, the rubric or a score.
_ADDRESSED_TO_JUDGE = re.compile(
    r"\b(?:judge|grader|evaluator|rubric|verdict|llm|language model|ai model|assistant|score|rating|grade"
    r"|juiz|avaliador|nota|juez|evaluador|juge|evaluateur|richter|bewertung)\b"
)
_SNIPPET_CHARS = 80
_LEADING_ANCHOR = re.compile(
    r"^[\s.,;:!?*>(#\[_-]*(?:(?:and|then|now|just|please|so|instead|e|entao|agora|y|luego|ahora|et|puis|und"
    r"|dann|jetzt|bitte|por favor|s'il vous plait)\s+)?"
)


def _snippet(text: str) -> str:
    compact = " ".join(text.split())
    return compact if len(compact) <= _SNIPPET_CHARS else compact[: _SNIPPET_CHARS - 1] + "…"


def _matches(normalized: str) -> Iterator[tuple[str, str]]:
    for label, pattern in _RULES:
        for match in pattern.finditer(normalized):
            # Drop the leading connective/punctuation that only anchors the imperative.
            yield label, _LEADING_ANCHOR.sub("", match.group(0)).rstrip()


def detect_injection(text: str) -> list[str]:
    """Short findings, one per distinct suspicious phrase, e.g. "instruction to the judge: 'ignore ...'".

    Empty when the text looks clean. Matching is done on a normalized copy (NFKC, no zero-width
    characters, case-folded, accents removed) so look-alike spellings do not slip through.
    """
    if not text:
        return []
    normalized = normalize_for_matching(text)
    findings: list[str] = []

    def add(finding: str) -> None:
        if finding not in findings:
            findings.append(finding)

    for label, phrase in _matches(normalized):
        add(f"{label}: '{_snippet(phrase)}'")
    for comment_re in (_HTML_COMMENT, _MD_COMMENT):
        for match in comment_re.finditer(normalized):
            body = match.group(1)
            inner = list(_matches(body))
            if inner:
                add(f"instruction hidden in a comment: '{_snippet(inner[0][1])}'")
            elif _ADDRESSED_TO_JUDGE.search(body):
                add(f"hidden comment addressed to the judge: '{_snippet(body)}'")
    return findings


__all__ = ["PROMPT_INJECTION_FLAG", "detect_injection", "neutralize", "normalize_for_matching"]
