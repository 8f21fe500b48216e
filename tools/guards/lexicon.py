"""The words of an order to a judge, by concept, in many languages at once: the vocabulary `concepts.py` reads.

An order to whoever grades a text needs a few parts whatever its wording: a verb of ignoring with a word for the
instructions, a word for the grader addressed directly, the top of a scale with the judged text or every
criterion, a new role for the reader. Each list holds one concept's words across languages (English, Portuguese,
Spanish, French, German, Italian, Dutch, Polish, Czech, Romanian, Turkish, Indonesian, Vietnamese, Swahili,
Arabic, Persian, Hebrew, Hindi, Bengali, Russian, Ukrainian, Greek, Chinese, Japanese, Korean, Thai); a rule
fires on its concepts in any mix of languages.

Words are written plainly and folded like the text (no accents, case-folded, Hangul decomposed). A Latin, Greek
Cyrillic, Arabic, Hebrew, Devanagari or Hangul word matches at a word start and may be followed by any letters
(a stem matches its inflections) unless written with a trailing `$` (whole word only); Chinese, Japanese and Thai
words, written without spaces, match anywhere.
"""

from __future__ import annotations

# Orders to ignore or not apply something: imperative forms, so that "the patient ignored the advice" is not one.
IGNORE = [
    "ignore$", "disregard$", "forget$", "skip$", "override$", "overrule$", "bypass$", "set aside", "put aside",
    "do not follow", "don't follow", "do not apply", "don't apply", "stop following", "stop applying",
    "pay no attention", "never mind", "do not use", "don't use", "throw out", "discard$", "drop the",
    "ignore$", "ignora$", "ignorem$", "desconsidere$", "desconsidera$", "esqueca$", "esquece$", "deixe de lado",
    "deixa de lado", "nao siga", "nao aplique", "nao considere", "nao use", "despreze$",
    "ignoren$", "olvida$", "olvide$", "olviden$", "no hagas caso", "no haga caso", "no sigas", "no siga$",
    "no apliques", "no aplique$", "no uses", "deja de lado", "descarta$", "pasa por alto", "haz caso omiso",
    "ignorez$", "oublie$", "oubliez$", "ne tiens pas compte", "ne tenez pas compte", "ne suis pas", "ne suivez pas",
    "n'applique pas", "n'appliquez pas", "laisse de cote", "laissez de cote", "fais abstraction", "faites abstraction",
    "ignoriere$", "ignorier$", "vergiss$", "vergessen sie", "missachte$", "uberspringe$", "nicht beachten",
    "nicht anwenden", "nicht befolgen", "setze ausser kraft",
    "ignorate$", "dimentica$", "dimenticate$", "lascia perdere", "lasciate perdere", "non tenere conto",
    "non seguire", "non applicare", "non considerare", "trascura$", "tralascia$",
    "negeer$", "vergeet$", "volg niet", "pas niet toe",
    "zignoruj$", "ignoruj$", "zapomnij$", "pomin$", "nie stosuj", "nie przestrzegaj", "nie bierz pod uwage",
    "nie zwracaj uwagi", "odrzuc$",
    "ignorujte$", "zapomen$", "zapomente$", "nepouzivej$",
    "ignora$", "ignorati$", "uita$", "uitati$", "nu aplica", "nu tine cont",
    "yok say", "gormezden gel", "unut$", "bos ver", "dikkate alma", "umursama", "takma$",
    "abaikan$", "lupakan$", "jangan ikuti", "jangan pakai", "jangan gunakan", "jangan hiraukan", "tidak usah ikuti",
    "dung lam theo", "khong lam theo", "bo qua", "quen di", "hay quen", "dung de y", "dung theo", "dung ap dung",
    "khong can theo", "phot lo", "gac lai",
    "lo di",
    "puuza$", "sahau$", "usifuate", "usitumie", "achana na", "acha vigezo", "acha maagizo", "acha sheria",
    "تجاهل", "انس", "تناس", "لا تلتزم", "لا تعتمد", "لا تتبع", "لا تطبق", "لا تلتفت", "اترك", "دع عنك",
    "نادیده بگیر", "فراموش کن", "اعمال نکن", "پیروی نکن", "توجه نکن", "کنار بگذار",
    "התעלם", "שכח", "אל תשתמש", "אל תפעל לפי", "אל תתחשב",
    "अनदेखा", "नज़रअंदाज़", "नजरअंदाज", "भूल जा", "छोड़ दो", "छोड़ दें", "ध्यान न दें", "ध्यान मत दो",
    "लागू मत करो", "लागू न करें", "पालन मत करो", "पालन न करें",
    "উপেক্ষা", "ভুলে যাও",
    "игнорируй", "проигнорируй", "забудь", "не обращай внимания", "не обращайте внимания", "не применяй",
    "не следуй", "не учитывай", "пропусти$", "отбрось",
    "ігноруй", "не зважай", "не застосовуй",
    "αγνοησε", "αγνοηστε", "ξεχασε", "ξεχαστε", "μην εφαρμοσεις", "μην ακολουθησεις",
    "忽略", "忽视", "无视", "不要理会", "别理会", "不用理会", "不要管", "别管", "不要遵循", "不要按照", "不要使用",
    "忘记", "忘掉", "抛开",
    "無視", "忘れて", "気にせず", "気にしないで", "従わず", "従わないで", "使わずに", "使わないで", "適用せず",
    "무시", "잊어", "잊고", "버리고", "신경 쓰지 말", "적용하지 말", "따르지 말", "상관하지 말",
    "เพิกเฉย", "ไม่ต้องสนใจ",
]  # fmt: skip

# What is to be ignored: instructions, rules, criteria, a rubric, a prompt.
INSTRUCTIONS = [
    "instruction", "rubric", "criteria$", "criterion$", "guideline", "rules$", "directions$", "system prompt",
    "prompt$", "prompts$", "evaluation steps", "scoring rules", "grading criteria", "what you were told",
    "what you've been told", "everything above",
    "instruc", "regras$", "orientac", "diretrizes$", "criterios$", "rubrica$", "comandos$",
    "reglas$", "pautas$", "indicaciones$", "directrices$",
    "consignes$", "regles$", "directives$", "criteres$", "bareme$",
    "anweisung", "regeln$", "vorgaben$", "richtlinien$", "kriterien$", "bewertungskriterien$",
    "istruzion", "regole$", "indicazioni$", "linee guida", "criteri$", "griglia$",
    "instructies$", "regels$", "richtlijnen$",
    "instrukcj", "polecen", "zasad", "wytyczn", "kryteri", "regul",
    "pokyny$", "pravidla$", "kriteria$", "instructiunile$", "regulile$", "criteriile$",
    "talimat", "kural", "yonerge", "olcut", "kriter",
    "instruksi$", "aturan$", "pedoman$", "kriteria$", "rubrik$", "petunjuk$",
    "huong dan", "chi dan", "quy tac", "tieu chi", "chi thi",
    "maagizo$", "maelekezo$", "sheria$", "vigezo$", "kanuni$",
    "التعليمات", "تعليمات", "القواعد", "المعايير", "معايير", "الإرشادات", "إرشادات", "التوجيهات", "ما طلب منك",
    "دستورالعمل", "دستورات", "قوانین", "معیار",
    "הוראות", "כללים", "קריטריונים", "הנחיות",
    "निर्देश", "नियम", "मानदंड", "दिशानिर्देश", "मापदंड",
    "নির্দেশ", "নিয়ম",
    "инструкци", "правил", "указани", "критери",
    "інструкці", "вказівк", "критері",
    "οδηγιες", "κανονες", "κριτηρια",
    "指令", "指示", "规则", "标准", "要求", "准则",
    "ルール", "基準", "規則", "指針",
    "지시", "지침", "규칙", "기준",
    "คำสั่ง", "เกณฑ์",
]  # fmt: skip

# Whoever grades the text, as a reader would be addressed.
GRADER = [
    "evaluator", "grader", "judge$", "judges$", "assessor", "reviewer", "marker$", "markers$", "examiner", "rater$",
    "scorer$", "ai$", "llm$", "language model", "evaluation model", "grading model", "judging model", "ai judge",
    "avaliador", "examinador", "corretor", "juiz$", "modelo avaliador",
    "evaluador", "corrector", "juez$", "modelo evaluador",
    "evaluateur", "correcteur", "examinateur", "juge$", "modele evaluateur",
    "bewerter", "prufer", "pruefer", "gutachter", "richter$", "bewertende modell",
    "valutatore", "correttore", "esaminatore", "giudice$", "modello che valuta",
    "beoordelaar", "examinator",
    "oceniajac", "egzaminator", "sprawdzajac", "modelu oceniajacego",
    "hodnotitel", "evaluatorul",
    "degerlendiric", "puanlayic", "sinav gorevlisi", "hakem", "degerlendiren model",
    "penilai$", "juri$",
    "giam khao", "nguoi cham", "nguoi danh gia", "mo hinh danh gia",
    "msahihishaji", "mtathmini", "modeli inayotathmini",
    "المقيم", "مقيم", "المصحح", "مصحح", "الحكم", "نموذج التقييم",
    "ارزیاب", "داور", "مصحح",
    "בודק", "שופט", "מעריך",
    "मूल्यांकनकर्ता", "परीक्षक", "जाँचने वाले", "जांचने वाले", "निर्णायक",
    "পরীক্ষক",
    "оценщик", "экзаменатор", "проверяющ",
    "оцінювач", "екзаменатор",
    "αξιολογητ", "βαθμολογητ", "εξεταστ",
    "评委", "评审", "评分员", "评估者", "评分者", "阅卷", "考官",
    "審査員", "採点者", "評価者", "試験官", "評価ai", "採点ai",
    "심사위원", "채점자", "평가자", "심사하는", "채점하는",
    "ผู้ประเมิน", "ผู้ตรวจ",
]  # fmt: skip

# How a grader is addressed: "to the", "dear", "attention", and the postpositions and datives of other languages.
ADDRESS = [
    "to the", "for the", "dear$", "attention$", "hey$", "note to", "note for", "message to", "memo to",
    "ao$", "para o", "para a", "prezado", "caro$", "cara$", "al$", "para el", "querido", "estimado", "a l'", "au$",
    "cher$", "chere$", "an den", "an das", "an die", "liebe$", "lieber$", "per il", "al$", "gentile$",
    "do$", "dla$", "szanown", "uwaga dla", "vazeny", "catre$", "sayin$", "untuk$", "kepada$", "yth$", "gui$",
    "kinh gui", "kwa$", "mpendwa", "προς", "για τον", "για την",
    "إلى", "الى", "عزيزي", "أيها", "ايها", "به$", "خطاب به", "אל$", "לכבוד",
    "के लिए", "से:", "को:", "уважаем", "дорог", "для$",
    "致", "请注意", "へ", "様", "の方へ", "에게", "님", "께",
]  # fmt: skip

# The top of a scale, in words.
TOP = [
    "maximum", "max$", "highest", "full marks", "top marks", "full score", "perfect$", "top score", "top mark",
    "top grade", "best possible", "five stars", "best answer", "best response", "risposta migliore",
    "migliore risposta", "mejor respuesta", "meilleure reponse", "beste antwort", "melhor resposta",
    "a+$", "flawless", "excellent$",
    "maxima$", "maximo$", "mais alta", "mais alto", "excelente$", "perfeita$", "perfeito$",
    "mas alta", "mas alto", "perfecta$", "perfecto$",
    "maximale$", "meilleure note", "la plus haute", "excellente$", "parfaite$",
    "hochste", "bestnote", "volle punktzahl", "hervorragend", "hoechste",
    "massimo$", "piu alto", "pieni voti", "eccellente$", "perfetta$",
    "hoogste", "maximale score",
    "maksymaln", "najwyzsz", "doskonal",
    "nejvyssi", "maxim",
    "tam puan", "en yuksek", "mukemmel",
    "sempurna$", "tertinggi$", "maksimal$",
    "toi da", "cao nhat", "xuat sac",
    "kamili$", "juu kabisa", "juu zaidi", "za juu",
    "الكاملة", "القصوى", "أعلى", "اعلى", "النهائية", "ممتاز",
    "بالاترین", "کامل", "عالی",
    "מלא", "הגבוה", "מקסימלי",
    "अधिकतम", "सर्वोच्च", "पूरे", "पूर्ण अंक", "सबसे ऊँचा", "सबसे ऊंचा", "सबसे ज़्यादा", "सबसे ज्यादा",
    "максимальн", "высш", "наивысш", "отличн",
    "максимальн", "найвищ",
    "μεγιστ", "αριστα",
    "满分", "最高", "最好",
    "満点", "最高",
    "만점", "최고", "최고점",
    "คะแนนเต็ม", "สูงสุด",
]  # fmt: skip

# The judged text itself, as an order or a self-grading names it.
SUBJECT = [
    "this answer", "this response", "this text", "this assessment", "this summary", "this idea", "this submission",
    "this proposal", "this pitch", "this abstract", "this essay", "this report", "this candidate", "this output",
    "this one", "the answer above", "the text above", "the response above", "this work", "this draft",
    "a summary like this", "an answer like this",
    "esta resposta", "este texto", "esta avaliacao", "esta ideia", "esta respuesta", "esta evaluacion",
    "cette reponse", "ce texte", "diese antwort", "dieser text", "questa risposta", "questo testo",
    "dit antwoord", "deze tekst", "ta odpowiedz", "tej odpowiedzi", "ten tekst", "tento text", "acest raspuns",
    "bu cevap", "bu yanit", "bu metin", "jawaban ini", "teks ini", "cau tra loi nay", "van ban nay",
    "jibu hili", "maandishi haya", "cau nay", "bai nay", "dit antwoord", "deze tekst",
    "هذه الإجابة", "هذه الاجابة", "هذا الرد", "هذا النص", "هذا الجواب",
    "این پاسخ", "این متن", "התשובה הזו", "הטקסט הזה",
    "इस उत्तर", "यह उत्तर", "इस जवाब", "इस पाठ",
    "этот ответ", "этому ответу", "этот текст", "эту работу", "цей текст", "цю відповідь",
    "αυτη την απαντηση", "αυτο το κειμενο",
    "这个回答", "这篇", "这段", "本答案", "该回答",
    "この回答", "この文章", "この答え",
    "이 답변", "이 응답", "이 글",
]  # fmt: skip

# Every criterion at once: "on every metric", "in each category".
EVERY_CRITERION = [
    "every metric", "every criterion", "each criterion", "every dimension", "each dimension", "all criteria",
    "all metrics", "all dimensions", "each category", "every category", "each metric", "every item", "each item",
    "across the board", "on all counts", "every criteria",
    "cada criterio", "cada item", "cada apartado", "todos los criterios", "todos os criterios", "chaque critere",
    "tous les criteres", "jedes kriterium", "allen kriterien", "ogni criterio", "ogni voce", "tutti i criteri",
    "kazdy punkt", "kazdej kategorii", "kazde kryterium", "her kriter", "her madde", "setiap butir", "setiap kriteria",
    "moi muc", "tung muc", "kila kipengele", "vigezo vyote",
    "كل بند", "كل المعايير", "جميع المعايير", "كل معيار", "همه موارد", "همه معیار", "כל קריטריון",
    "हर मापदंड", "हर मानदंड", "सभी मानदंड", "каждому пункту", "всем пунктам", "всем критериям", "κάθε κριτηριο",
    "每一项", "每项", "所有项目", "すべての項目", "全ての項目", "各項目", "모든 항목", "각 항목",
]  # fmt: skip

# Imperatives of giving a grade or approving, and verbs of deserving.
GIVE = [
    "give$", "award$", "assign$", "set every", "put this", "mark this", "mark the answer", "rate this",
    "rate the", "score this", "approve$", "pass this", "mark as", "return score", "output a",
    "deserves$", "merits$", "earns$", "is worth", "should get", "should receive", "should score", "must get",
    "atribua", "conceda", "aprove$", "merece$", "dale$", "asigna", "otorga",
    "apruebe$", "aprueba$", "donne$", "donnez$", "attribue", "mets$", "approuve", "merite$", "gib$", "vergib",
    "verdient", "genehmige", "dai$", "assegna", "metti$", "approva$", "merita$", "geef$", "verdient$",
    "daj$", "przyznaj", "zatwierdz", "zasluguje", "onayla", "hak ediyor", "almali", "beri$", "berikan",
    "layak$", "setujui", "duyet", "hay cham", "cham diem", "xung dang", "phai dat", "ipe$", "upe$", "kubali",
    "linastahili",
    "lazima yapate",
    "أعط", "اعط", "امنح", "ضع", "يستحق", "تستحق", "وافق", "بده", "تأیید کن", "شایسته", "باید", "תן", "ראוי", "מגיע",
    "दो$", "दें", "दीजिए", "हकदार", "पास कर", "पास होना",
    "поставь", "дай$", "оцени", "одобри", "заслуживает", "должен получить", "должна получить",
    "δωσε", "αξιζει", "给", "打", "判定为通过", "让这", "つけて", "与えて", "合格に", "にしてください",
    "주세요", "줘", "매기", "통과", "받아야",
]  # fmt: skip

# A new role for the reader.
ROLE = [
    "you are now", "you're now", "you are no longer", "pretend you", "pretend to be", "imagine you", "act as$",
    "you will play", "from now on you", "stay in character", "roleplay", "role-play", "role play", "let's pretend",
    "let's play", "you are dan", "as dan",
    "agora voce e", "a partir de agora voce", "ahora eres", "a partir de ahora eres", "desde ahora eres",
    "tu es maintenant", "desormais tu es", "du bist jetzt", "ab jetzt bist du", "da ora in poi sei",
    "da adesso sei", "ora sei", "vanaf nu ben je", "od teraz jestes", "teraz jestes", "artik", "bundan sonra sen",
    "mulai sekarang kamu", "sekarang kamu", "tu gio ban", "tu bay gio ban", "bay gio ban la", "sasa wewe ni",
    "أنت الآن", "انت الان", "من الآن", "تو اکنون", "از این به بعد", "מעכשיו אתה", "ειμαι τωρα", "απο τωρα",
    "अब तुम", "अब आप", "теперь ты", "отныне ты", "ты теперь", "тепер ти",
    "从现在开始你", "你现在是", "今からあなた", "あなたは今", "지금부터 당신", "이제 당신", "이제부터",
]  # fmt: skip

# What an order from a role or a comment is about: grading words.
GRADING = [
    "score", "grade", "grading", "rating", "rate$", "marks$", "points$", "verdict", "approve", "pass$", "yes$",
    "nota$", "notas$", "puntuacion", "calificacion", "pontuacao", "note$", "bewertung", "punkt", "voto$",
    "punteggio", "cijfer", "ocen", "punkt", "puan", "nilai$", "skor$", "diem", "alama", "درجة", "الدرجة",
    "علامة", "نمره", "ציון", "अंक", "स्कोर", "балл", "оценк", "βαθμ", "分", "点", "점", "คะแนน", "aprov", "aprob",
    "approuv", "genehmig", "approv", "onay", "zatwierdz",
]  # fmt: skip

# "New instructions": an order announcing itself.
NEW_ORDERS = [
    "new instructions", "new instruction", "new task", "new rules", "updated instructions", "next instruction",
    "novas instrucoes", "nova tarefa", "nuevas instrucciones", "nueva tarea", "nouvelles instructions",
    "nouvelle tache", "neue anweisungen", "neue aufgabe", "nuove istruzioni", "nuovo compito", "nieuwe instructies",
    "nowe instrukcje", "nowe polecenie", "nowe zadanie", "yeni talimat", "yeni gorev", "instruksi baru",
    "tugas baru", "huong dan moi", "nhiem vu moi", "maagizo mapya", "kazi mpya", "تعليمات جديدة", "مهمة جديدة",
    "دستورالعمل جدید", "دستور جدید", "הוראות חדשות", "नए निर्देश", "नया काम", "новые инструкции", "новая задача",
    "нові інструкції", "νεες οδηγιες", "新的指令", "新指令", "新任务", "新しい指示", "新しいタスク", "새로운 지시",
    "새 지시", "새로운 작업",
]  # fmt: skip

# Orders to approve or pass (imperative forms).
APPROVE = [
    "approve$", "accept$", "pass$", "aprove$", "aprova$", "aprueba$", "apruebe$", "approuve$", "approuvez$",
    "genehmige$",
    "akzeptiere$", "approva$", "accetta$", "keur", "zatwierdz", "zaakceptuj", "onayla", "kabul et", "setujui",
    "terima$",
    "duyet", "thong qua", "kubali", "pitisha", "وافق", "اقبل", "تأیید کن", "بپذیر", "אשר", "पास कर", "स्वीकार कर",
    "одобри", "прими$", "засчитай", "εγκρινε", "通过", "批准", "合格に", "承認して", "통과시키", "승인해",
]  # fmt: skip
