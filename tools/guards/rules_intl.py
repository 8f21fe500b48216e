"""The prompt-injection rules for Portuguese, Spanish, French, German, Chinese, Japanese and Russian.

Like the English ones (`rules_english`), they read the text as `normalize_for_matching` leaves it: without
accents, case-folded.
"""

from __future__ import annotations

import re
import unicodedata

from gavel.tools.guards.rules_english import CMD, JUDGE_NOUNS, Regex, Rule

# What a command to the judge names as the thing to score, as `rules.EN_SUBJECT` in English.
_PT_SUBJECT = r"resposta|texto|avaliacao|ideia|resumo|relatorio|proposta|candidato|candidata"
_ES_SUBJECT = r"respuesta|texto|evaluacion|idea|resumen|informe|propuesta|candidato|candidata"
_FR_SUBJECT = r"reponse|texte|evaluation|idee|resume|rapport|proposition|candidat|candidate"
_DE_SUBJECT = r"antwort|text|bewertung|idee|zusammenfassung|bericht|vorschlag"


def _fold(word: str) -> str:
    """A literal word as `normalize_for_matching` leaves it (NFKD without marks, case-folded): rules for scripts
    with diacritics (Russian й, Japanese dakuten) are written plainly and folded here, never the regex syntax."""
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", word).casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _any(*words: str) -> str:
    return "(?:" + "|".join(re.escape(_fold(w)) for w in words) + ")"


# Portuguese, Spanish, French, role overrides in those languages and German.
EUROPEAN: list[Rule] = [
    (
        "instruction to the judge",
        Regex(
            r"\b(?:ignore|ignora|ignorem|desconsidere|desconsidera|esqueca|esquece|esquecam)\s+(?:(?:todas|todos|as|os"
            r"|suas|tuas|quaisquer)\s+){0,3}(?:instrucoes|regras|orientacoes|diretrizes|ordens|comandos)\s+"
            r"(?:anteriores|acima|previas|precedentes|do\s+sistema|originais|recebidas)"
            rf"|{CMD}(?:ignore|ignora|desconsidere|esqueca)\s+(?:(?:todas|as|suas)\s+){{0,3}}"
            r"(?:instrucoes|regras|orientacoes|diretrizes|a\s+rubrica)"
        ),
    ),
    (
        "instruction to the judge",
        Regex(
            rf"{CMD}(?:de|da|atribua|atribui|coloque|ponha|conceda|marque)\s+"
            r"(?:(?:a|esta|essa|para|uma|um|lhe|" + _PT_SUBJECT + r")\s+){0,4}"
            r"(?:nota|pontuacao)\s+(?:maxima|10|dez|5|cinco"
            r"|1\.0|1,0|100|perfeita)\b"
            rf"|{CMD}(?:avalie|avalia|classifique|pontue)\s+(?:(?:a|esta|essa|{_PT_SUBJECT})\s+){{0,3}}"
            r"com\s+(?:(?:a|uma|um|nota)\s+){0,2}(?:maxima|10|dez|5|cinco|1\.0|1,0|100|perfeita)\b"
            rf"|{CMD}aprove\s+(?:esta|essa|a)\s+resposta"
        ),
    ),
    # Spanish
    (
        "instruction to the judge",
        Regex(
            r"\b(?:ignora|ignore|ignoren|olvida|olvide|olviden|descarta|descarte)\s+(?:(?:todas|todos|las|los|tus|sus"
            r"|cualquier)\s+){0,3}(?:instrucciones|reglas|indicaciones|directrices|ordenes)\s+"
            r"(?:anteriores|previas|de\s+arriba|del\s+sistema|originales|precedentes)"
            rf"|{CMD}(?:ignora|ignore|ignoren|olvida|olvide)\s+(?:(?:todas|las|tus|sus)\s+){{0,3}}"
            r"(?:instrucciones|reglas|indicaciones|la\s+rubrica)"
        ),
    ),
    (
        "instruction to the judge",
        Regex(
            rf"{CMD}(?:da|dale|de|dele|pon|ponle|asigna|asignale|otorga|otorgale)\s+"
            r"(?:(?:a|esta|esa|la|un|una|el|" + _ES_SUBJECT + r")\s+){0,4}(?:nota|puntuacion|calificacion|puntaje)\s+"
            r"(?:de\s+)?(?:10|diez|5|cinco|1\.0|1,0|100|maxima|perfecta)\b"
            rf"|{CMD}(?:califica|calificala|puntua|puntuala|evalua|evaluala)\s+"
            r"(?:(?:a|esta|esa|la|" + _ES_SUBJECT + r")\s+){0,3}"
            r"con\s+(?:(?:un|una|la|nota)\s+){0,2}(?:10|diez|5|cinco|1\.0|1,0|100|maxima|perfecta)\b"
            rf"|{CMD}aprueba\s+(?:esta|esa|la)\s+respuesta"
        ),
    ),
    # French
    (
        "instruction to the judge",
        Regex(
            # Not the past tense: "le juge a ignoré les instructions précédentes".
            r"(?<!\ba )(?<!\bont )(?<!\bavait )"
            r"\b(?:ignorez|ignore|ignorer|oubliez|oublie|oublier)\s+(?:(?:toutes|tous|les|vos|tes|des)\s+){0,3}"
            r"(?:instructions|consignes|regles|directives|ordres)\s+(?:precedentes|anterieures|ci-dessus|du\s+systeme"
            r"|d'origine|initiales|recues)"
            rf"|{CMD}(?:ignorez|ignore|oubliez|oublie)\s+(?:(?:toutes|les|vos|tes)\s+){{0,3}}"
            r"(?:instructions|consignes|regles|la\s+grille)"
        ),
    ),
    (
        "instruction to the judge",
        Regex(
            rf"{CMD}(?:donnez|donne|attribuez|attribue|mettez|mets|accordez|accorde)(?:-lui|-la|-moi)?\s+"
            r"(?:(?:lui|a|cette|la|une|un|le|" + _FR_SUBJECT + r")\s+){0,4}(?:note|score)\s+(?:de\s+)?"
            r"(?:10(?:\s*/\s*10)?|20\s*/\s*20|5(?:\s*/\s*5)?|1\.0|1,0|maximale|maximum|parfaite)"
            rf"|{CMD}(?:donnez|donne|attribuez|attribue|mettez|mets|accordez|accorde)(?:-lui|-la|-moi)?\s+"
            r"(?:(?:lui|a|cette|" + _FR_SUBJECT + r")\s+){0,3}"
            r"(?:10\s*/\s*10|20\s*/\s*20|5\s*/\s*5|la\s+note\s+maximale)"
            rf"|{CMD}(?:notez|evaluez)\s+(?:(?:cette|la|{_FR_SUBJECT})\s+){{0,2}}(?:a\s+|avec\s+)?"
            r"(?:10\s*/\s*10|20\s*/\s*20|5\s*/\s*5|la\s+note\s+maximale)"
            rf"|{CMD}approuvez\s+(?:cette|la)\s+reponse"
        ),
    ),
    (
        "role override",
        Regex(
            rf"\b(?:voce|tu)\s+(?:agora\s+e|e\s+agora|agora\s+es|es\s+agora)\s+(?:\w+\s+){{0,3}}?{JUDGE_NOUNS}\b"
            rf"|\bahora\s+eres\s+(?:\w+\s+){{0,3}}?{JUDGE_NOUNS}\b"
            rf"|\b(?:tu\s+es|vous\s+etes)\s+(?:maintenant|desormais)\s+(?:\w+\s+){{0,3}}?{JUDGE_NOUNS}\b"
            rf"|\b(?:du\s+bist|sie\s+sind)\s+(?:jetzt|nun|ab\s+sofort)\s+(?:\w+\s+){{0,3}}?{JUDGE_NOUNS}\b"
        ),
    ),
    # German
    (
        "instruction to the judge",
        Regex(
            r"\b(?:ignoriere|ignorier|ignorieren\s+sie|ignoriert|vergiss|vergessen\s+sie|missachte|missachten\s+sie)\s+"
            r"(?:(?:alle|die|deine|ihre|jegliche|samtliche|bisherigen|vorherigen|obigen|vorangegangenen|fruheren"
            r"|vorigen)\s+){0,4}(?:anweisungen|instruktionen|regeln|vorgaben|befehle|bewertungskriterien|rubrik)\b"
        ),
    ),
    (
        "instruction to the judge",
        Regex(
            rf"{CMD}(?:gib|geben\s+sie|vergib|vergeben\s+sie|bewerte|bewerten\s+sie|benote|benoten\s+sie)\s+"
            r"(?:(?:dieser|diese|der|die|das|dem|ihr|ihm|mit|eine|einer|den|volle|voller|" + _DE_SUBJECT + r")\s+){0,5}"
            r"(?:bestnote|hochstnote|volle\s+punktzahl|voller\s+punktzahl|hochste\s+punktzahl|hochsten\s+punktzahl"
            r"|10(?:\s*/\s*10)?|10\s+punkte|5\s+punkte|1\.0|note\s+1\b|einer\s+1\b)"
        ),
    ),
]

# Chinese, Japanese and Russian.
OTHER_SCRIPTS: list[Rule] = [
    (
        "instruction to the judge",
        Regex(
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
        Regex(
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
        Regex(
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
