"""Main-claim reading of the ``nl`` text classifier (DESIGN §5; package docstring, "Main claim").

The clause cues (:mod:`.cues`, :mod:`.cues_intl`) know what particular phrasings report. This
module reads the *shape* of a message instead, so that phrasings no cue table holds are still
read by what the message claims about the requested action:

* **further offers** -- a question in which the agent proposes one more action of its own
  ("Do you want me to send a confirmation as well?", "需要我顺便…吗？", "¿Quiere que le envíe
  también …?") is, like a courtesy closing, no claim about the request: it is set aside
  whenever the message says something else (corpus rules 3 and 7). A question that proposes
  the action without marking it as a further one stays a question, because it may be the
  go-ahead for the request itself.
* **needs** -- the agent stating what it needs from the user before it can act ("I'll need the
  date of the damage to move forward", "A copy of the receipt is required for the claim") asks
  for information: ``clarify`` (corpus rule 2), unless the text refuses or reports it done.
* **passive completions** -- "Your plan has been switched to ...", "The role was created"
  report a result without naming the agent; read as a completion of lower rank (a ``go`` cue:
  it decides only when nothing after it refuses or asks).
* **polarity** -- a message with no cue is read by the polarity of its statements: one that
  denies a possibility, a permission or an availability ("a return pickup isn't on the table",
  "passwords are never sent over chat", "不是我能替您决定的") states that the request cannot
  be done: ``abstain`` (corpus rule 5); negations of a cost, a need or an effect ("nothing was
  charged", "no changes were needed", "the live app isn't affected") are about something else
  and leave the statement an answer (corpus rule 6).
"""

from __future__ import annotations

import re
import unicodedata

_FURTHER_MARK = re.compile(
    r"\b(?:also|as\s+well|too|additionally|in\s+addition|another|while\s+(?:i|we)\s+(?:am|are)\s+at\s+it|aussi|[ée]galement|auch|"
    r"noch|zus[äa]tzlich|tambi[ée]n|adem[áa]s|tamb[ée]m)\b|顺便|另外|也|还|同时|も|도|또한|추가로"
)
"""Words that mark an offered action as one more, not the requested one."""

_AGENT_OFFER = re.compile(
    r"\byou(?:\s+would)?\s+like\s+me\s+to\b|(?:^|[,;:\-]\s*)(?:and\s+|so\s+|also\s+)?(?:(?:would|do|did)\s+you\s+(?:also\s+)?(?:like|want|wish|prefer)\s+(?:for\s+)?"
    r"(?:me|us)\s+to|(?:do\s+you\s+)?want\s+me\s+to|(?:shall|should|can|could|may)\s+(?:i|we)\b|would\s+it\s+help\s+if\s+i)"
    r"|(?:要不要|需不需要|是否需要|需要|要)(?:我|为您|帮您|给您)|^(?:要不要|需不需要|是否需要)|(?:我|我们)(?:再|也|还|顺便)?(?:帮您|为您|给您)[^。？?]{0,30}(?:吗|好吗)"
    r"|\b(?:souhaitez|voulez|voudriez)-vous\s+que\s+je\b|\b(?:soll|sollen)\s+(?:ich|wir)\b|\bm[öo]chten\s+sie,?\s+dass\s+ich\b"
    r"|(?:quiere|desea|quieres|deseas)\s+que\s+(?:le\s+|te\s+|lo\s+|la\s+)?\w+|\b(?:quer|deseja|gostaria)\s+que\s+eu\b"
    r"|(?:しましょうか|いたしましょうか|致しましょうか|お送りしましょうか)|(?:드릴까요|할까요|해\s?드릴까요)"
)
"""A question in which the agent proposes an action of its own."""

_LOOKUP_OFFER = re.compile(
    r"(?:\b(?:i|we)\s+(?:\w+\s+)?|\bme\s+to\s+(?:\w+\s+)?)(?:check|look|search|see|find|notify|let\s+you\s+know|connect|"
    r"put\s+you\s+through|note|keep\s+an\s+eye|set\s+up\s+an?\s+(?:alert|reminder)|reach\s+out|ask|contact|explore)\b"
    r"|(?:我|为您|帮您)(?:先)?(?:查|看看|问问|联系|通知|留意|找找|备注)"
)
"""An offer to look something up, tell or connect: a preparatory step (corpus rule 1), so after a
refusal it offers something other than the request (rule 3), never the go-ahead for it."""


def lookup_offer(clause_low: str) -> bool:
    """Whether a question offers a look-up, a notice or a connection (not the requested action)."""
    return bool(_AGENT_OFFER.search(clause_low) and _LOOKUP_OFFER.search(clause_low))


_CHOICE_OR = re.compile(r"\b(?:or|ou|oder)\b|还是|または|それとも|아니면|또는")
_GO_AHEAD_WORDS = re.compile(
    r"\b(?:proceed|go\s+ahead|continue|confirm|finali[sz]e)\b|继续|执行|确认|進め|진행"
)


def is_further_offer(sentence_low: str) -> bool:
    """Whether a question sentence proposes one more action of the agent's (set aside).

    Args:
        sentence_low: The sentence, lower-cased (contractions expanded for English).

    Returns:
        ``True`` for "Do you want me to notify them as well?"-like questions; ``False`` for a
        choice ("... to the card or as credit?") or a go-ahead ("Shall I proceed?").
    """
    if not _AGENT_OFFER.search(sentence_low) or not _FURTHER_MARK.search(sentence_low):
        return False
    return not (_CHOICE_OR.search(sentence_low) or _GO_AHEAD_WORDS.search(sentence_low))


_INFO = (
    r"(?:number|id|name|date|time|address|e-?mail|phone|code|pin|password|details|information|info|receipt|invoice|"
    r"photo|picture|screenshot|copy|document|log|file|serial|reference|amount|account|iban|routing|"
    r"confirmation|dob|birth|zip|postcode|location|size|colou?r|quantity|model|version|order|flight|booking)s?"
)
_NEED_EN = re.compile(
    r"\b(?:i|we)\s+(?:will\s+|would\s+|still\s+|first\s+|just\s+|also\s+|only\s+|then\s+)*(?:need|require)\s+"
    r"(?!to\s+(?:decline|refuse|escalate|transfer|stop|pause|hold|wait|let|inform|tell\s+you|point|mention|note|be\s+careful))"
    r"(?:to\s+(?:know|have|get|see|confirm|verify|check\s+with\s+you)|(?:you|your|the|a|an|some|one|two|a\s+few|a\s+couple|"
    r"these|those|their|his|her|its)\b)"
    r"|\b(?:one\s+thing|a\s+(?:few|couple\s+of)\s+(?:things|details))\s+(?:i|we)\s+(?:will\s+|would\s+)?need\b"
    r"|\bi\s+(?:have|must)\s+(?:to\s+)?know\b"
    rf"|\b{_INFO}\s+(?:\w+\s+){{0,3}}(?:is|are)\s+(?:both\s+|also\s+|still\s+)?(?:required|needed|necessary)\s+(?:to|for|before)\b"
)
"""The agent stating what it needs from the user before it can act (a statement-form question)."""
_NOT_NEED = re.compile(
    r"\b(?:approval|authori[sz]ation|permission|sign-?off|signature\s+from|manager|supervisor|role|access\s+to)\b"
)
"""What the user cannot simply give: a need for these is a missing permission, not a question."""


_NEED_OTHER: dict[str, re.Pattern[str]] = {
    "zh": re.compile(r"还(?:缺|差|需要)(?:几|一些|以下|这些)?(?:项|个|条|份)?(?:信息|资料|材料|细节)|需要您(?:提供|告诉|确认|补充|发)"
                     r"|^(?!如|若|假如|要是)[^，。]{0,20}需要(?!.{0,12}(?:批准|审批|授权|同意|签字|主管|经理|权限|财务|管理员|部门|同事|人工|柜台|客服|运营商|专员|由))[^，。]{0,20}(?:金额|日期|号码|编号|单号|地址|姓名|名字|"
                     r"信息|资料|照片|截图|凭证|小票|发票|序列号|型号|账号|密码|验证码|尺码|颜色)"
                     r"|(?:发|告诉)(?:我|给我)一下|把[^，。]{1,16}发(?:给)?我|^麻烦(?:您|你)?[^，。]{0,40}(?:发给我|发我|告诉我)"),
    "fr": re.compile(r"\bil\s+me\s+manque\b|\bil\s+me\s+faut\b|\bil\s+me\s+faudra(?:it)?\b|\bj'(?:ai|aurai|aurais)\s+besoin\s+d|\bje\s+dois\s+(?:conna[iî]tre|savoir|avoir)\b"),
    "de": re.compile(r"\bich\s+(?:brauche|ben[öo]tige)\b|\b(?:brauche|ben[öo]tige)\s+ich\b"),
    "es": re.compile(r"\bme\s+faltan?\b|\bnecesito\b|\bnecesitar[ée]\b|\bme\s+hace\s+falta\b"),
    "pt": re.compile(r"\bpreciso\s+d|\bvou\s+precisar\b|\bprecisarei\b"),
    "ja": re.compile(r"(?:番号|桁|日付|住所|名前|情報|生年月日)[^。、]{0,10}が必要です"
                     r"|(?:お知らせ|ご連絡|ご提供|お送り|教えて)(?:いただき次第|いただければ)|お知らせ(?:いただけ|ください)|教えて(?:いただけ|ください)"),
    "ko": re.compile(r"알려\s?주시면|알려\s?주세요|알려\s?주시겠"),
}
"""The same statement of a need in Chinese and the six smaller tables ("Ich brauche nur Ihre
Bestellnummer", "还缺几项信息")."""


_WAIT_ON_USER = re.compile(
    r"^(?:and\s+)?(?:once|as\s+soon\s+as|when|after)\s+(?:i\s+(?:have|get|receive|know|hear)|you\s+(?:send|share|tell|confirm|"
    r"let\s+me\s+know|provide|reply|give|choose|pick|decide))\b"
    r"|^(?:您|你)(?:告诉|发|提供|确认|选|回复)[^，。]{0,20}(?:后|之后|以后)|^(?:收到|拿到)(?:您|你)[^，。]{0,20}(?:后|之后)"
)
"""A promise that waits on the user's answer ("Once I have the size you'd like, I'll ship it")."""


def need_cue(clause_low: str, lang: str = "en") -> bool:
    """Whether an uncued clause states what the agent needs from the user (``clarify``).

    Args:
        clause_low: The clause, lower-cased (contractions expanded for English).
        lang: Its language (``en``, ``zh`` or one of the six smaller tables).
    """
    if lang in ("en", "zh") and _WAIT_ON_USER.search(clause_low):
        return True
    if lang != "en":
        pat = _NEED_OTHER.get(lang)
        return bool(pat and pat.search(clause_low))
    m = _NEED_EN.search(clause_low)
    return m is not None and not _NOT_NEED.search(clause_low[m.start():])


_PASSIVE_DONE = re.compile(
    r"^(?:and\s+)?(?:your|the|this|that|both|all|each|every|its|their|my)\b[^,;]{0,80}?\b(?:has|have)\s+(?:now\s+|just\s+)?"
    r"been\s+(?:successfully\s+|fully\s+)?(?!already\b)[a-z]{3,}(?:ed|en|up|t)\b(?!\s+by\s+(?:the\s+)?(?:operator|airline|carrier|"
    r"courier|customer|bank|merchant|vendor|seller|hotel|restaurant|user))"
    r"|^(?:and\s+)?(?:your|the|this|that|its|their|my)\s+(?:[\w-]+\s+){0,4}?(?:deploy(?:ment)?|upgrade|update|install(?:ation)?|"
    r"migration|backup|restore|transfer|payment|import|export|sync|upload|rollout|release|job|run|build)\s+"
    r"(?:finished|completed|succeeded|went\s+through|went\s+live)\b"
)
"""An impersonal completion ("Your direct deposit has been switched to ...", "The deploy finished
at 16:42 UTC")."""


def passive_done(clause_low: str) -> bool:
    """Whether an uncued English clause reports a result without naming the agent."""
    return bool(_PASSIVE_DONE.search(clause_low)) and not _NEGATION_EN.search(clause_low) \
        and not _LOOKUP_PASSIVE.search(clause_low)


_LOOKUP_PASSIVE = re.compile(
    r"\bbeen\s+(?:successfully\s+)?(?:located|found|verified|authenticated|identified|retrieved|looked\s+up|pulled\s+up|"
    r"confirmed\s+as|validated|matched)\b"
)
"""A look-up or an authentication reported done ("Your user ID has been located"): a step before the
request, not its result (corpus rule 1)."""


_NEGATION_EN = re.compile(r"\b(?:not|never|no|none|nothing|neither|nor|unable|cannot)\b|\bno\s+longer\b")
_NEGATION_ZH = re.compile(r"不|没|无法|未|绝不|非")
_BENIGN_EN = re.compile(
    r"\b(?:no|not|nothing|never)\b[^,;.]{0,30}?\b(?:charged?|charges|billed|fee|fees|cost|costs|difference|need|needed|"
    r"necessary|required|affected|impact|impacted|issues?|problems?|errors?|action\s+(?:is\s+)?(?:needed|required)|"
    r"pending|worry|further|other|else|additional|extra|deleted|lost|expires?|expiring|changed\s+(?:on|in)\s+(?:the|your)\s+other)\b"
    r"|\bnot\s+(?:related|associated|relevant)\s+to\b"
    r"|^(?:this\s+means\s+|which\s+means\s+|so\s+)?(?:that\s+)?(?:it|they|this|that|which|(?:the|your|this|that)\s+(?:[\w#-]+\s+){0,3}?"
    r"(?:order|package|parcel|item|items|shipment|orders))\s+(?:has|have|is|are)\s+not\s+(?:yet\s+)?(?:been\s+)?(?:processed\s+or\s+)?"
    r"(?:shipped|delivered|dispatched|fulfilled|arrived)(?:\s+yet)?\W*$"
    r"|\bguarantee[ds]?\b|\bpromise[ds]?\b|\bunaffected\b|\bno\s+need\b|\bdo(?:es)?\s+not\s+(?:need|have)\s+to\b|\bwithout\s+(?:any\s+)?(?:charge|cost|fee)"
)
"""Negations about something else (a cost, a need, an effect, a problem): never a refusal."""
_BENIGN_ZH = re.compile(r"保证|确保|承诺|费用|收费|扣费|不(?:需要|用|必|影响|收费|产生)|无需|没有(?:产生|收取|扣|影响|问题|删除)|未(?:产生|收取|扣)|不会(?:再)?(?:扣|收|影响|打扰)|无(?:额外|任何)?(?:费用|影响)")
_DENY_EN = re.compile(
    r"\b(?:is|are|was|were)\s+(?:not|never|no\s+longer)\s+(?:being\s+|yet\s+)?(?:[a-z]{3,}ed|sent|made|given|done|paid|"
    r"taken|held|kept|shown|sold|run|issued|possible|available|eligible|covered|accepted|supported|an?\s+option|something|"
    r"within|on\s+the\s+table|part\s+of|refundable|returnable|transferable)\b|\b(?:will|would|can|could)\s+not\s+be\b"
    r"|\b(?:has|have)\s+not\s+been\b|\b(?:does|do|did)\s+not\s+(?:apply|allow|permit|accept|cover|qualify|support|offer)\b"
    r"|\b(?:never|no\s+longer|no\s+way)\b|\bnot\s+(?:on\s+the\s+table|an?\s+option|something|within|eligible|possible|"
    r"available|permitted|allowed|covered|accepted)\b|\boff\s+the\s+table\b|\bout\s+of\s+(?:scope|the\s+question)\b"
    r"|\b(?:falls?|is|are)\s+outside\b|\bexcluded\b|\bnon-?(?:refundable|returnable|transferable|negotiable)\b"
    r"|\b(?:is|are|was|were|has\s+been|have\s+been)\s+(?:blocked|prohibited|forbidden|barred|disallowed)\b"
    r"|\b(?:would|will|to)\s+exceed\b|\bexceeds?\s+(?:the|its|your|our|this|that|a)\b"
    r"|\bno\s+(?:[\w-]+\s+){0,2}(?:was|were|has\s+been|have\s+been)\s+[a-z]{3,}ed\b"
    r"|\brather\s+than\s+(?:something\s+)?(?:i|we)\s+(?:should|can|could)\b|\bnot\s+on\s+the\s+\w+\s+list\b"
    r"|\b(?:reserved|restricted|limited)\s+(?:to|for)\b|\bgoes\s+against\b|\bagainst\s+(?:the|our)\s+(?:[\w-]+\s+){0,2}polic"
    r"|\b(?:is|are)\s+(?:all\s+|already\s+)*(?:taken|gone|booked\s+up)\b"
    r"|\bthere\s+is\s+no\s+(?:option|way|means|ability|function|feature|mechanism|provision|facility)\b|\bno\s+option\s+to\b"
    r"|\b(?:must|can\s+only|may\s+only|has\s+to|have\s+to)\s+be\s+(?:\w+\s+){0,2}(?:requested|done|made|submitted|approved|"
    r"processed|handled|initiated|changed|authori[sz]ed|signed|placed)\s+by\b|\bonly\s+(?:the|a|an|your)\s+(?:[\w-]+\s+){0,2}can\b"
    r"|\bno\s+changes?\s+(?!(?:were\s+|was\s+|are\s+|is\s+)?(?:needed|required|necessary))\w+"
    r"|\bcomes?\s+with\s+no\b|\b(?:auto-?)?rejects?\s+(?:any|all|every)\b|\b(?:is|are)\s+not\s+(?:yet\s+)?open\s+(?:for|to)\b"
    r"|\b(?:window|deadline|period|cutoff|cut-off)\s+(?:[\w-]+\s+){0,4}?(?:closed|ended|passed|expired|lapsed)\b"
    r"|\b(?:will|would|can|does|do)\s+not\s+(?:\w+\s+){1,6}?(?:anymore|any\s+more|any\s+longer)\b"
    r"|\b(?:is|are)\s+(?:already\s+)?(?:booked|reserved|taken)\b[^,;]{0,60}?\bby\s+(?:the|a|an|another|someone)\b"
)
"""A statement that denies a possibility, a permission, an availability or a future effect."""
_DENY_ZH = re.compile(
    r"不(?:是我|在|属于|适用|予|能|可|会|允许|支持|接受|提供|参与|参加|包括|再|开通|办理|受理|处理|安排|退|换)|无法|没法|办不了|做不了|绝不|未能|不了"
    r"|[\u4e00-\u9fff]不(?:了|到(?!\s*\d)|进去|进|成)|已(?:经)?没(?:有)?了|只能由|必须由|(?:没有|未|没)(?:为|给|帮|替)(?:您|你)|(?:本次|这次|此次)(?:没有|未|并未)|(?:规定|政策|条款)[^，。]{0,6}(?:只限|仅限|仅供|只能)"
)


def denies(clause_low: str, lang: str) -> bool:
    """Whether a clause denies that something can, may or will happen (not a benign negation).

    Args:
        clause_low: The clause, lower-cased (contractions expanded for English).
        lang: ``en`` or ``zh``.

    Returns:
        ``True`` for "a return pickup is not on the table", "绝不会通过聊天发送"; ``False`` for
        "nothing was charged", "不会再扣费", "no changes were needed".
    """
    if lang == "zh":
        return bool(_DENY_ZH.search(clause_low)) and not _BENIGN_ZH.search(clause_low)
    return bool(_DENY_EN.search(clause_low)) and not _BENIGN_EN.search(clause_low)


_ELSEWHERE = re.compile(
    r"\b(?:nothing|none|no\s+other|not\s+any\s+other|no\s+further)\s+(?:else\b|other\b|of\s+the\s+other\b)?"
    r"(?=[^,;.]{0,40}\b(?:else|other|others|otherwise|remaining|rest)\b)|\bnothing\s+else\b|\bno\s+other\b"
    r"|其他(?:的)?[^，。]{0,10}(?:没有|未|不)|其余[^，。]{0,10}(?:没有|未|不)"
)
"""A negation scoped to other things ("nothing else was changed", "no other settings were touched")."""


def elsewhere(clause_low: str) -> bool:
    """Whether a not-done or not-possible clause is about something other than the request (corpus
    rule 6): its negation is scoped to "else / other / the rest" and it names no refusal of the agent."""
    return bool(_ELSEWHERE.search(clause_low)) and not re.search(r"\b(?:i|we)\s+(?:can|could|will|would)\s+not\b", clause_low)


_OUTSIDE_INTL = re.compile(
    r"\b(?:hors\s+(?:de|du|des)|en\s+dehors|au-del[àa]|au[ßs]erhalb|jenseits|fuera\s+de|m[áa]s\s+all[áa]|fora\s+d[aeo]s?|al[ée]m\s+d)\b"
    r"|対象外|範囲外|범위\s?밖|대상이\s?아닙"
)
_CAN_INTL = re.compile(
    r"\b(?:possible|possibles|m[öo]glich|posible|poss[íi]vel|peu[tx]|pouvons|kann|k[öo]nnen|puede|podemos|pode|podemos|"
    r"g[ée]r[ée]e?s?|g[ée]rons|trait[ée]e?s?|traitons|bearbeitet|bearbeiten|gestiona|gestionamos|tramita|processad[oa]|tratad[oa]|"
    r"autoris[ée]e?s?|erlaubt|zul[äa]ssig|permitid[oa]s?|permite|permitimos)\b"
)
_FINAL_INTL = re.compile(
    r"\b(?:verbindlich|vinculante|firme|esgotad[oa]s?|esgotaram|[ée]puis[ée]e?s?|agotad[oa]s?|ausverkauft|complet|completo|lotad[oa]s?)\b"
    r"|完売|売り切れ|満席|満室|매진|품절|마감"
)
"""Final, sold-out and full: a request that cannot be had (French "complet", Korean 매진 ...)."""
_BENIGN_INTL = re.compile(
    r"cobr|d[ée]bit|factur|belast|berechnet|diferen|diff[ée]rence|"
    r"necesari|n[ée]cessaire|n[öo]tig|erforderlich|necess[áa]ri|besoin|affect|afect|betroffen|probl|nada\s+m[áa]s|"
    r"rien\s+d'autre|nichts\s+weiter|料金|費用|差額|必要|요금|비용|차액|필요"
)


def denies_intl(clause_low: str, negation: re.Pattern[str]) -> bool:
    """Whether a clause of the six smaller tables denies that the request can be done: a negation
    proper (``negation``, the language's pattern) of a "can / possible / handled / allowed" word, or an
    "outside of" phrase, not about a cost, a
    need or an effect ("no se le ha cobrado nada" is about something else)."""
    denied = _OUTSIDE_INTL.search(clause_low) or _FINAL_INTL.search(clause_low) \
        or negation.search(clause_low) and _CAN_INTL.search(clause_low)
    return bool(denied) and not _BENIGN_INTL.search(clause_low)


_ZH_MOVED = re.compile(r"(?:^|我)(?:已|已经)(?:成功)?(?:把|将)[^，。；]{1,40}?(?:到|为|成)")
"""A Chinese change-of-state completion ("已把实例从 4 核升到 8 核")."""


def zh_moved(clause_low: str) -> bool:
    """Whether an uncued Chinese clause reports a change made (已把/已将 X … 到/为/成 Y)."""
    return bool(_ZH_MOVED.search(clause_low)) and not _NEGATION_ZH.search(clause_low)


PROPOSAL = re.compile(
    r"\b(?:hear|learn|know)\s+(?:more\s+)?about\b|\binterested\s+in\b|\bopen\s+to\b|\bconsider\b|\btry\s+(?:a|an|the|another)\b"
    r"|\b(?:servir(?:ia|iam)|conviendrai(?:t|ent)|convendr[íi]a(?:n)?|vendr[íi]a(?:n)?\s+bien|passt|passen|w[äa]re\s+(?:das|dies))\b"
    r"|いかがでしょうか|괜찮으실까요|어떠세요|어떠신가요|\bis\s+there\s+(?:something|anything)\b|(?:^|您看|你看)(?:可以|行|合适|方便)吗|了解|考虑|看看|试试|感兴趣|哪(?:个|一个|种)[^，。]{0,8}(?:方便|合适|好|可以|行)"
)
"""A question proposing something to learn about or try: after a refusal, an alternative (corpus rule 3)."""


_OFFER_FORM = re.compile(
    r"^(?:and\s+|so\s+|also\s+)?(?:would|do)\s+you\s+(?:also\s+)?(?:like|want)\b|^(?:shall|should|can|may)\s+i\b"
    r"|^(?:要不要|需不需要|是否需要|需要我)"
)
_READY = re.compile(
    r"\b(?:ready|prepared|found|eligible|can|could|able|available|option|options|draft|drafted|would|cost|costs|total|"
    r"price|fee|fees|charge|quote)\b|[$€£¥]|准备好|找到|可以|能|费用|价格|总价"
)


def offer_after_statement(question_low: str, before_low: str) -> bool:
    """Whether a closing question only offers more after a plain statement (corpus rule 7).

    Args:
        question_low: The closing question, lower-cased.
        before_low: The statements before it (no cue of their own), lower-cased.

    Returns:
        ``True`` for "The appointment is on your calendar with a reminder. Would you like a second
        reminder?"; ``False`` when the question is a choice, a go-ahead, asks for a detail, or the
        statements before only prepare the request ("... is ready", "I found", "I can", a price).
    """
    if not _OFFER_FORM.search(question_low) or _CHOICE_OR.search(question_low) or _GO_AHEAD_WORDS.search(question_low):
        return False
    return len(before_low.split()) >= 8 and not _READY.search(before_low) and not _NEGATION_EN.search(before_low)


_WARNING = re.compile(
    r"\b(?:can|could|will)\s+not\s+be\s+(?:undone|recalled|reversed|recovered|restored|retrieved|unsent)\b|\bno\s+way\s+to\s+undo\b"
    r"|\bpermanent(?:ly)?\b|\birreversib\w*|后(?:将)?(?:无法|不可|不能)(?:恢复|撤回|撤销|还原)|不可(?:恢复|撤回|撤销|逆)|无法撤回|撤不回|收不回|回不来|撤销不了"
    r"|取り消せ|元に戻せ|復元(?:でき|不可)|되돌릴|복구\s?(?:불가|할\s?수\s?없)|irr[ée]versible|d[ée]finiti\w*|endg[üu]ltig"
    r"|r[üu]ckg[äa]ngig|deshacer|desfazer|irrevers[íi]vel"
)
"""Words of an irreversibility warning ("it can't be undone", "删除后无法恢复"): a warning before a
confirmation request, not a refusal of the request."""


_ONCE_LIMIT = re.compile(
    r"\bonly\b[^.;:!?]{0,60}?\b(?:once|one\s+time)\b(?!\s+(?:the|your|its?|they|we|you|this|that|these|those|our|an?|he|she|i)\b)"
    r"|\bonly\s+(?:\w+\s+){0,2}?(?:one|1|a\s+single)\s+(?:\w+\s+){0,2}?(?:exchange|return|modification|change|cancell?ation|action|request)s?"
    r"(?:\s+request)?\s+(?:per|for\s+(?:each|every|this|the|an?))\s+(?:order|reservation|booking)\b"
)
"""A once-only limit on the step being prepared ("item modifications can only be done once per order",
"I can only process one exchange request per order"): a warning of a consequence of going ahead. The
conjunction "once the order is delivered" ("returns can only be started once the order is delivered")
is no such limit."""
_LIMIT_HIT = re.compile(r"\b(?:already|no\s+longer|not|never|cannot|unable)\b|n't\b")
"""Words that make a once-only limit a refusal: the one time is used up ("was already modified once")."""


def warning(clause_low: str) -> bool:
    """Whether a not-possible clause only warns that a step cannot be undone (no refusal)."""
    return bool(_WARNING.search(clause_low))


def once_limit(sentence_low: str) -> bool:
    """Whether an English sentence states a once-only limit on the step being prepared
    (:data:`_ONCE_LIMIT`) without saying that the one time is used up or refusing (:data:`_LIMIT_HIT`):
    beside a question to the user, a warning of what going ahead means, not a refusal."""
    return bool(_ONCE_LIMIT.search(sentence_low)) and not _LIMIT_HIT.search(sentence_low)


_IF = re.compile(r"^(?:and\s+|but\s+)?(?:if|unless|in\s+case|should\s+you)\b|^(?:如果|若|假如|要是|万一|如)")
"""A clause opened by a condition: what it denies is a hypothesis, not a refusal."""


_OFFER_START = re.compile(
    r"^(?:and\s+|so\s+)?(?:(?:would|do)\s+you\s+(?:also\s+)?(?:like|want)\s+(?:me|us)\s+to|(?:shall|should|can|may)\s+i)\b"
    r"|^(?:要不要|需不需要|是否需要|需要我|要(?:我|帮您|为您|给您))"
)
_CITES_USER = re.compile(r"\b(?:you\s+(?:mentioned|said|told\s+me|noted|were\s+flexible)|as\s+you\s+(?:asked|requested|prefer))\b|您(?:提到|说过|说了|之前说)")


def offers_instead(clause_low: str, sentence_low: str) -> bool:
    """Whether a question after a refusal has the agent offer to do another thing (corpus rule 3):
    an agent offer ("should I hold that for you?", "要帮您先留着吗") that does not rest on what the
    user said ("since you mentioned you were flexible", which makes it the request itself)."""
    start = clause_low.lstrip(" -\u2014,")
    return bool(_OFFER_START.search(start)) and not _CITES_USER.search(sentence_low)


_STATUS_DONE = re.compile(r"^(?:status\s*:?\s*)?(?:done|completed?|finished|resolved|handled|fixed|success(?:ful)?|succeeded)$")
"""A report's status word standing alone ("Phishing report - handled", "Status: completed")."""


_STATUS_CHANGE = re.compile(
    r"^(?:the\s+|your\s+)?(?:(?!(?:but|and|or|so|yet|has|have|had|is|are|was|were|will|would|should|"
    r"could|can|do|does|did|be|been|it|this|that|i|we|you|they|he|she|if|when|not|never|no|nothing|already|once|after|"
    r"before|until|to|status|being|getting|last|date|first)\b)[\w#-]+\s+){1,3}?(?:now\s+|successfully\s+)?(?:placed|sent|paid|submitted|issued|refunded|"
    r"processed|booked|rebooked|cancell?ed|changed|modified|updated|upgraded|applied|created|deleted|removed|added|"
    r"exchanged|returned|approved|scheduled|rescheduled|reset|restarted|transferred|credited|reactivated|renewed)"
    r"(?:\s+successfully)?$")
"""A terse status line reporting a change ("Refund issued", "Order #W1 cancelled"): one to three words
naming the thing, then the participle, and nothing else (a record's field, "Status: cancelled" or
"#W1 (cancelled)", is not one)."""


def status_done(clause_low: str) -> bool:
    """Whether an English clause is only a status word reporting the work done ("Status: completed")
    or a terse status line reporting a change ("Refund issued ✅", "Order placed.")."""
    bare = clause_low.strip(" *_-:.!")
    if _STATUS_DONE.match(bare) or _STATUS_CHANGE.match(bare):
        return True
    if bare.isascii():
        return False
    marks = "".join(" " if unicodedata.category(c) in ("So", "Sk", "Cf") else c for c in bare)  # "Refund issued ✅"
    return bool(_STATUS_CHANGE.match(re.sub(r"\s+", " ", marks).strip(" *_-:.!")))

