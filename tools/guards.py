"""Deterministic defences for untrusted text: delimiter neutralization and prompt-injection detection.

The engine puts every untrusted block (a judged answer, passages, a question) between lines
`<<<BEGIN label nonce>>>` and `<<<END label nonce>>>`. `neutralize` makes sure the text inside can never
contain a run that reads like those delimiters. `detect_injection` finds instructions aimed at the judge,
so a tool can flag them and refuse to approve on the model's word alone, whatever the model says.

Both are pure functions with no model involved: the model is the thing being attacked, so it cannot be
the only line of defence.
"""

from __future__ import annotations

import base64
import re
import unicodedata
from collections.abc import Callable, Iterator

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


def _fold(word: str) -> str:
    """A literal word as `normalize_for_matching` leaves it (NFKD without marks, case-folded): rules for scripts
    with diacritics (Russian й, Japanese dakuten) are written plainly and folded here, never the regex syntax."""
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", word).casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _any(*words: str) -> str:
    return "(?:" + "|".join(re.escape(_fold(w)) for w in words) + ")"


_YES = r"[\"'“‘«]?(?:yes|approved|pass(?:ed)?|true)\b[\"'”’»]?"
_ADDRESSED = (
    r"(?:note|message|memo|reminder|instructions?|attention|hinweis|nachricht|nota|mensaje|mensagem|remarque)\s+"
    r"(?:to|for|an|fur|a|au|aux|pour|para|al|ao|a\s+la)\s+(?:the\s+|den\s+|die\s+|l'|le\s+|el\s+|o\s+|la\s+|a\s+)?"
    r"(?:ai\s+|llm\s+)?"
)

_RULES += [
    (
        # "Note to the evaluator: ..." — ordinary text has no reason to address whoever grades it.
        "note to the judge",
        re.compile(rf"\b{_ADDRESSED}{_JUDGE_NOUNS}s?\s*[:,\-–—]"),
    ),
    (
        "instruction to the judge",
        re.compile(
            r"\b(?:the\s+)?(?:correct|right|proper|expected|appropriate|only\s+(?:valid|acceptable)|true)\s+"
            r"(?:evaluation|score|rating|grade|verdict|assessment|judg(?:e)?ment|output|decision)\s+"
            r"(?:here\s+)?(?:is|would\s+be|must\s+be|=)\s*:?\s*(?:the\s+|a\s+)?"
            r"(?:maximum|max|highest|perfect|full|top|10|5|1\.0|100|approved|pass|yes)\b"
            r"|\b(?:maximum|max|top|highest|perfect|full)\s+(?:possible\s+)?(?:score|marks|rating|grade|points)\s+"
            r"(?:on|for|in|across)\s+(?:every|each|all(?:\s+the)?)\s+(?:criteri(?:on|a)|metrics?|dimensions?|rubric)"
        ),
    ),
    (
        "instruction to the judge",
        re.compile(
            rf"{_CMD}(?:output|return|print|emit|respond\s+with|reply\s+with|answer\s+with|write)\s+"
            r"(?:a\s+|the\s+)?(?:score|rating|grade|verdict)\s*(?:of\s+|:\s*|=\s*|as\s+)?"
            r"(?:\d|maximum|perfect|approved|pass)"
            rf"|\bnew\s+(?:system\s+)?(?:instructions?|rules?|directions?|orders?|task)\s+(?:for|to)\s+(?:the\s+)?"
            rf"{_JUDGE_NOUNS}\b"
        ),
    ),
    (
        "fake delimiter",
        re.compile(
            r"[=#*~_\-]{3,}[ \t]*end\s+of\s+(?:the\s+)?(?:text|answer|response|input|data|document|passages?"
            r"|context|content|submission|assessment)\b"
            r"|^[ \t]*end\s+of\s+(?:the\s+)?(?:text|content|submission)[ \t]*[=#*~_\-]{3,}",
            re.MULTILINE,
        ),
    ),
    (
        # Aimed at a judge that answers Yes or No (a probability readout of "Yes").
        "instruction to the judge",
        re.compile(
            rf"{_CMD}(?:answer|reply|respond|say|output|return|print|write)(?:\s+with)?\s*[:=]?\s*{_YES}"
            r"(?!\s*(?:or|/)\s*[\"'“‘«]?no\b)"
            rf"|\b(?:the\s+)?(?:correct|right|expected|only\s+(?:valid|acceptable)|true)\s+(?:answer|response|reply"
            rf"|verdict|output|label)\s+(?:here\s+)?(?:is|would\s+be|must\s+be|=)\s*[:=]?\s*{_YES}"
            rf"|\b(?:must|should|have\s+to|always|only)\s+(?:answer|reply|respond|say|output)\s+(?:with\s+)?{_YES}"
        ),
    ),
    (
        "fake verdict line",
        re.compile(rf"(?m)^[ \t*#>_-]{{0,6}}(?:reply|answer|response|output|verdict|judg(?:e)?ment)[ \t*_]{{0,3}}[:=]"
                   rf"[ \t*_]{{0,3}}{_YES}[ \t.!]*$"),
    ),
    # Chinese
    (
        "instruction to the judge",
        re.compile(
            _any("忽略", "无视", "忘记", "忘掉", "不要理会", "不理会", "忽视", "無視", "忘記")
            + r"[^。！？\n]{0,12}?"
            + _any("指令", "指示", "说明", "規則", "规则", "提示", "要求", "命令", "評分標準", "评分标准")
            + "|"
            + _any("给", "給", "打", "评", "評", "请给", "請給")
            + r"[^。！？\n]{0,10}?"
            + _any("满分", "滿分", "最高分", "10分", "十分", "5分", "五分", "最高评分", "最高評分")
            + "|"
            + _any("你现在是", "你現在是", "从现在起你", "從現在起你")
        ),
    ),
    # Japanese
    (
        "instruction to the judge",
        re.compile(
            _any("指示", "命令", "ルール", "指令", "採点基準", "評価基準", "ルーブリック")
            + r"[^。！？\n]{0,8}?"
            + _any("無視", "忘れ")
            + "|"
            + _any("満点", "最高点", "最高評価", "最高スコア", "10点", "5点")
            + r"[^。！？\n]{0,6}?"
            + _any("を付け", "をつけ", "を与え", "にして", "をください", "を下さい", "にしてください")
            + "|"
            + _any("あなたは今", "今からあなたは")
        ),
    ),
    # Russian
    (
        "instruction to the judge",
        re.compile(
            r"\b"
            + _any("игнорируй", "игнорируйте", "проигнорируй", "проигнорируйте", "забудь", "забудьте",
                   "не обращай внимания на", "не обращайте внимания на", "отбрось", "отбросьте")
            + r"\s+(?:\w+\s+){0,3}?"
            + _any("инструкции", "инструкций", "указания", "указаний", "правила", "правил", "критерии", "команды",
                   "рубрику")
            + r"|\b"
            + _any("поставь", "поставьте", "дай", "дайте", "оцени", "оцените", "выставь", "выставьте", "присвой",
                   "присвойте")
            + r"\s+(?:\w+\s+){0,4}?"
            + r"(?:"
            + _any("максимальн", "высш", "наивысш", "отличн")
            + r"\w*\s+(?:"
            + _any("оценк", "балл")
            + r"\w*)|10\s+из\s+10|5\s+из\s+5|"
            + _any("на отлично", "пятерку", "пятёрку", "десятку")
            + r")"
            + r"|\b"
            + _any("ты теперь", "теперь ты", "вы теперь", "теперь вы")
            + r"\s+(?:\w+\s+){0,2}?"
            + _any("судья", "оценщик", "эксперт", "ассистент", "модель", "проверяющий")
        ),
    ),
]  # fmt: skip

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


# -- disguises -------------------------------------------------------------------------------------------
# Each disguise is undone into a variant of the text that the same rules then read. A variant is made only
# when the text shows the disguise (look-alike letters, letters spaced out, digits inside words, a base64
# run, tag characters), except ROT13, whose variant is read only when it holds a word the rules look for.

# Cyrillic and Greek letters that look like Latin ones (lower case: the text is case-folded first).
_CONFUSABLES = str.maketrans({
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t",
    "у": "y", "х": "x", "і": "i", "ї": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h", "ӏ": "l",
    "ʟ": "l", "ɡ": "g", "ı": "i", "ℓ": "l", "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v",
    "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "γ": "y", "ω": "w", "ϲ": "c", "ѵ": "v", "ԍ": "g",
})  # fmt: skip
_LOOK_ALIKE = re.compile("[" + "".join(chr(c) for c in range(0x370, 0x530)) + "ʟɡıℓ]")
# Unicode tag characters (U+E0020..U+E007E) mirror printable ASCII and render as nothing.
_TAGS = re.compile("[\U000e0020-\U000e007e]")
# Letters standing alone, separated by one space, dot, dash or the like: "i g n o r e".
_SPACED = re.compile(r"(?<![^\W\d_])(?:[^\W\d_][ .\-_*·|/]){3,}[^\W\d_](?![^\W\d_])")
# A word with digits or symbols standing in for letters: "1gn0r3", "pr3v10u5", "@ll".
_LEET_WORD = re.compile(r"(?<![\w@$])(?=[a-z0-9@$!|]*[a-z])(?=[a-z0-9@$!|]*[0-9@$])[a-z0-9@$!|]{3,}(?![\w@$])")
_LEET_I = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "@": "a", "$": "s",
                         "!": "i", "|": "l"})  # fmt: skip
_LEET_L = str.maketrans({"0": "o", "1": "l", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "@": "a", "$": "s",
                         "!": "i", "|": "l"})  # fmt: skip
_BASE64_RUN = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{16,}={0,2}(?![A-Za-z0-9+/=_-])")
_ROT13 = str.maketrans("abcdefghijklmnopqrstuvwxyz", "nopqrstuvwxyzabcdefghijklm")
_ROT13_HINT = re.compile(
    r"\b(?:ignore|disregard|forget|instructions?|rubric|grader|judge|evaluator|marks|score|approve|answer\s+yes)\b"
)
# Squeezed (letters only) forms of the core orders, for text spaced out letter by letter with no word gaps.
_SQUEEZED = re.compile(
    r"(?:ignore|disregard|forget|override|bypass)(?:all|any|of|the|your|these|those|my|every){0,3}"
    r"(?:previous|prior|above|earlier|preceding|system|original)(?:instructions?|prompts?|rules?|directions?"
    r"|guidelines?|criteria)"
    r"|(?:ignore|disregard|forget)(?:the|your)?(?:rubric|scoringrules|gradingcriteria|scoringcriteria"
    r"|evaluationcriteria)"
    r"|(?:give|award|assign)(?:it|this|me)?(?:answer|response|text|assessment|idea|candidate)?(?:a|an|the)?"
    r"(?:full|perfect|maximum|max|top|highest)(?:marks|score|rating|grade|points)"
    r"|newinstructionsfor(?:the)?(?:grader|judge|evaluator|assessor|model|ai)"
)
_MAX_DECODED = 20


def _spaced_joined(match: re.Match[str]) -> str:
    return re.sub(r"[ .\-_*·|/]", "", match.group(0))


def _leet(normalized: str, table: dict[int, str]) -> str:
    return _LEET_WORD.sub(lambda m: m.group(0).translate(table), normalized)


def _base64_texts(text: str) -> Iterator[str]:
    """Readable text hidden in base64 runs (standard or URL-safe): the first few runs that decode to it."""
    decoded = 0
    for match in _BASE64_RUN.finditer(text):
        run = match.group(0)
        if not (re.search(r"[A-Z]", run) and re.search(r"[a-z]", run)):
            continue  # a word, a hex digest or a number, not base64
        try:
            raw = base64.b64decode(run + "=" * (-len(run) % 4), altchars=b"-_" if "-" in run or "_" in run else None)
            plain = raw.decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            continue
        printable = sum(ch.isprintable() or ch in "\n\t" for ch in plain)
        if plain and printable / len(plain) > 0.95 and " " in plain:
            yield plain
            decoded += 1
            if decoded >= _MAX_DECODED:
                return


# A word that every rule about orders, notes, scores or verdicts needs: a variant without one is not read.
_HINT = re.compile(
    r"ignor|disregard|forget|overrid|bypass|skip|score|grad|rate|rating|mark|judg|evaluat|assess|review|approv"
    r"|accept|pass|verdict|rubric|instruction|prompt|rule|criteri|yes|note|you|act|pretend|behave|output|reply"
    r"|answer|respond|return|print|say|system|assistant|new|end|perfect|max|full|top|high|best|point|correct"
    r"|award|give|assign|[\u0400-\u04ff\u3040-\u30ff\u4e00-\u9fff]"
)
# Around each disguised word, this much of the text is read with the disguise undone (a whole order fits).
_WINDOW = 200


def _windows(text: str, spans: Iterator[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        start, end = max(0, start - _WINDOW), min(len(text), end + _WINDOW)
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _undone(text: str, spans: Iterator[tuple[int, int]], undo: Callable[[str], str]) -> str | None:
    """`undo` applied to the parts of `text` around `spans` (the disguised words), joined; None without spans
    or when the result holds no word the rules look for."""
    windows = _windows(text, spans)
    if not windows:
        return None
    variant = "\n\n".join(undo(text[start:end]) for start, end in windows)
    return variant if _HINT.search(variant) else None


def _disguised(text: str, normalized: str) -> Iterator[tuple[str, str]]:
    """(how it was disguised, the text with that disguise undone), for each disguise the text shows. Only the
    text around the disguised words is undone and read, so an ordinary long text costs little more."""
    if _TAGS.search(text):
        hidden = "".join(chr(ord(ch) - 0xE0000) for ch in _TAGS.findall(text))
        yield "hidden in invisible tag characters", normalize_for_matching(hidden)
    look_alikes = [m.span() for m in _LOOK_ALIKE.finditer(normalized)]
    folded = normalized.translate(_CONFUSABLES) if look_alikes else normalized
    if look_alikes and (variant := _undone(folded, iter(look_alikes), lambda part: part)) is not None:
        yield "look-alike letters", variant
    spaced = [m.span() for m in _SPACED.finditer(folded)]
    if spaced and (variant := _undone(folded, iter(spaced), lambda part: _SPACED.sub(_spaced_joined, part))):
        yield "letters spaced out", variant
    leet = [m.span() for m in _LEET_WORD.finditer(folded)]
    for table in (_LEET_I, _LEET_L) if leet else ():
        if (variant := _undone(folded, iter(leet), lambda part, table=table: _leet(part, table))) is not None:
            yield "digits for letters", variant
    if spaced or leet:
        squeezed = _undone(
            folded, iter(sorted(spaced + leet)), lambda part: re.sub(r"[^a-z]", "", _leet(part, _LEET_I))
        )
        if squeezed is not None:
            yield "squeezed", squeezed
    rot13 = normalized.translate(_ROT13)
    if _ROT13_HINT.search(rot13):
        yield "ROT13", rot13
    for plain in _base64_texts(text):
        yield "base64", normalize_for_matching(plain)


def detect_injection(text: str) -> list[str]:
    """Short findings, one per distinct suspicious phrase, e.g. "instruction to the judge: 'ignore ...'".

    Empty when the text looks clean. Matching is done on a normalized copy (NFKC, no zero-width
    characters, case-folded, accents removed) so look-alike spellings do not slip through, and again on each
    disguise undone (see `_disguised`): look-alike letters, spaced-out letters, digits for letters, ROT13,
    base64, invisible tag characters.
    """
    if not text:
        return []
    normalized = normalize_for_matching(text)
    findings: list[str] = []

    def add(finding: str) -> None:
        if finding not in findings:
            findings.append(finding)

    plain: set[str] = set()
    for label, phrase in _matches(normalized):
        plain.add(phrase)
        add(f"{label}: '{_snippet(phrase)}'")
    for how, variant in _disguised(text, normalized):
        if how == "squeezed":
            for match in _SQUEEZED.finditer(variant):
                add(f"instruction to the judge (letters spaced out): '{_snippet(match.group(0))}'")
            continue
        for label, phrase in _matches(variant):
            if phrase not in plain:  # found as written already; the variant only repeats it
                add(f"{label} ({how}): '{_snippet(phrase)}'")
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
