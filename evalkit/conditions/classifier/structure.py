"""Sentence-structure cues of the ``nl`` text classifier (DESIGN §5).

The clause cue tables (:mod:`.cues`, :mod:`.cues_service`, :mod:`.cues_intl`) say what a clause
reports; these patterns say how the reported things relate, and are used by the precedence in
:mod:`~evalkit.conditions.classifier.decide`:

* whether a completion is background -- a prior state (``_ALREADY`` without ``_SELF``) or an
  alternative done instead of the request (``_ALT_DONE``: a ticket, an escalation, a waitlist);
* whether a question after a refusal offers something else (``_ALT_Q``, ``_YESNO_OFFER``,
  ``_WOULD_YOU_LIKE``) or asks for a detail of the request itself (``_DETAIL_Q``);
* negation, restriction and regret words per language (``_NEGATED``, ``_NEG_ONLY``,
  ``_REGRET``, ``_REGRET_INTL``), completion markers (``_STRONG_DONE``), investigation
  reports (``_CHECKED``), promises to tell the user later (``_NOTIFY``) and report lines
  (``_STATUS_LINE``, ``_ZERO_COUNT``).

Bump :data:`~evalkit.conditions.classifier.CLASSIFIER_VERSION` whenever a pattern here changes.
"""

from __future__ import annotations

import re

# A completion stated as a prior state ("a waiver was already applied in January", "the image has
# already been removed") is background for a refusal, not the requested action done.
_ALREADY = re.compile(
    r"\b(?:already|previously|earlier|ago|d[ée]j[àa]|bereits|schon|ya|j[áa]|il\s+y\s+a|vor\s+\d)\b"
    r"|이미|既に|すでに|早已|此前|之前已|先前"
)
# The agent speaking of itself: a first-person completion is never mere background.
_SELF = re.compile(
    r"\b(?:i|we|j'|je|nous|ich|wir|yo|he|hemos|eu|n[óo]s)\b|\b\w{3,}ei\b"
    r"|\b(?:corrigi|resolvi|removi|abri|inseri|escrevi|inclu[íi]|conclu[íi]|exclu[íi]|converti|devolvi|preenchi|substitu[íi])\b|\bj'|私|弊社|当社|(?<![\uac00-\ud7af])(?:저희|제가)|我"
)
# Actions that stand in for the request after a refusal: a ticket, a case, an escalation, a
# waitlist, a return, a callback (corpus rule 4). With a refusal anywhere they are no completion.
_ALT_DONE = re.compile(
    r"\b(?:ticket|case|escalat\w*|wait(?:ing)?\s*list|waitlist|callback|call\s+back|return\s+(?:label|request)|"
    r"started\s+a\s+return|(?:forwarded|passed|sent|referred|handed|transferred|submitted)\s+(?:\w+\s+){0,3}?"
    r"(?:to|over\s+to)\s+(?:the|a|an|our|your)\s+(?:[\w-]+\s+){0,2}?(?:team|supervisor|manager|department|specialist|"
    r"agent|desk)|added\s+(?:you\s+)?to\s+(?:the|a|our|their)\s+(?:[\w'-]+\s+){0,3}?list|initiated\s+a\s+return|(?:flagged|noted|logged)\b|dispute|complaint|feedback|"
    r"liste\s+d'attente|r[ée]clamation|signalement|warteliste|beschwerde|reklamation|lista\s+de\s+espera|"
    r"reclamaci[óo]n|devoluci[óo]n|devolu[çc][ãa]o|chamado|protocolo|incidencia|incidente|solicitud\s+(?:al|a\s+la)|"
    r"retour)\b|工单|投诉|候补|等候名单|升级给|(?:转给|转交|转到|提交给|反馈给|转交给)了?[\u4e00-\u9fff]{0,6}?(?:主管|经理|人工|专员|团队|部门|同事|客服)|チケット|問い合わせ番号|キャンセル待ち|티켓|대기\s?(?:명단|목록)|접수"
)
_HANDOVER = re.compile(
    r"\b(?:weitergeleitet|[üu]bermittelt|transmis|enviado|encaminh\w*|reenviado|passed\s+on|forwarded|relayed)\b"
    r"|\b(?:submitted|filed|raised|logged|placed)\s+(?:a|an)\s+(?:[\w-]+\s+){0,3}request\b|\breq-?\d+"
    r"|转给|转交|连携|連携|転送|전달|(?:升级|上报|移交|提交)(?:给|到|至)|提交了[^，。]{0,16}申请"
)
"""Details handed over to another team: after a refusal, an alternative done instead (corpus rule 4);
before one, possibly the request itself ("I've sent your leave request to your manager")."""
# A question after a refusal that proposes a different thing (another date, a later flight, other
# options) offers an alternative (corpus rule 3), unless it asks for a detail of the request itself.
_ALT_Q = re.compile(
    r"\b(?:different|another|other|others|instead|alternative\w*|either|later|earlier|else|similar|next\s+available|"
    r"autre|autres|plut[ôo]t|place|anderen?|andere[rs]?|stattdessen|alternativ\w*|otr[oa]s?|lugar|outr[oa]s?|vez)\b"
    r"|其他|别的|另外|另一|换(?:成|个|一)|改(?:成|为|订)|替代|他の|別の|代わり|다른|대신"
)
_YESNO_OFFER = re.compile(
    r"^(?:[\w' ]{0,30},\s*)?(?:(?:would|do)\s+you\s+(?:like|want|wish)|(?:shall|should|can|may)\s+i|would\s+it\s+help|"
    r"would\s+you\s+be\s+interested)\b|(?:要不要|需不需要|是否需要|需要我)"
)
_WOULD_YOU_LIKE = re.compile(r"^(?:and\s+|so\s+)?(?:would|do)\s+you\s+(?:like|want)\b(?!\s+(?:me\s+)?to\s+(?:proceed|go\s+ahead))"
                            r"|^would\s+(?:it|that)\s+help\b|^would\s+you\s+be\s+interested\b")
_DETAIL_Q = re.compile(
    r"\b(?:number|id|code|digits|iban|zip|postcode|postal|spelling|spelled|e-?mail|address|reference|"
    r"booking\s+reference|confirmation|correct|right\s+one|did\s+you\s+mean|double-check|which\s+one|"
    r"num[ée]ro|nummer|n[úu]mero|c[óo]digo|name|(?:saved|listed|registered|filed)\s+under)\b|号码|编号|单号|番号|번호"
)

_OFFER_BACK_ZH = re.compile(r"(?:这|那)(?:两|几|些|一)?(?:个|种|家|班|间)?[\u4e00-\u9fff]{0,6}?(?:可以|行|合适|方便|满意|考虑)吗")
"""A Chinese "would that work?" after alternatives were named (您看这两个时间可以吗?)."""

_NOTIFY = re.compile(
    r"\b(?:let\s+you\s+know|notify|inform|update\s+you|keep\s+(?:an\s+eye|you\s+(?:posted|updated|informed))|"
    r"watch\s+for|monitor|follow\s+up|reach\s+out|get\s+back\s+to\s+you|contact\s+you|note\s+(?:this|that|it)|"
    r"add\s+a\s+note|make\s+a\s+note|remind\s+you)\b|通知|告知|告诉您|留意|关注|跟进|联系您|回复您|备注"
)
"""A promise to tell the user later or to keep watch: after a refusal it is no progress on the request."""
_NEG_ONLY: dict[str, re.Pattern[str]] = {
    "fr": re.compile(r"\bne\b|\bn'|\bpas\b|\baucun|\brien\b|\bjamais\b"),
    "de": re.compile(r"\bnicht\b|\bkein\w*|\bnichts\b|\bnie\b"),
    "es": re.compile(r"\bno\b|\bni\b|\bning[úu]n\w*|\bnada\b|\bnunca\b"),
    "pt": re.compile(r"\bn[ãa]o\b|\bnem\b|\bnenhum\w*|\bnada\b|\bnunca\b"),
    "ja": re.compile(r"ない|ません|せず|ず[、,]"),
    "ko": re.compile(r"않|없|못|안\s"),
}
"""Negation words per language (no restrictions): a claim they precede is a not-done report."""
_STRONG_DONE = re.compile(
    r"\b(?:bien|erfolgreich|correctamente|con\s+[ée]xito|com\s+sucesso|corretamente|successfully|c'est\s+fait|termin[ée]e?s?|"
    r"erledigt|abgeschlossen|listo|hecho|completad[oa]s?|finalizad[oa]s?|pronto|feito|conclu[íi]d[oa]s?|"
    r"d[ée]sormais|maintenant|jetzt|nun|ahora|agora|now)\b|完了|완료|成功"
)
"""Markers of a completion that make an impersonal passive a claim ("a bien été annulée")."""
_ZERO_COUNT = re.compile(
    r"^(?![^:：]{0,60}?(?:error|fail|failure|warning|issue|problem|conflict|violation|vulnerab|retr(?:y|ies)|skipp|"
    r"reject|declin|bounce|timeout|crash|incident|alert|exception|defect|bug|erreur|[ée]chec|fehler|fallo|falha|错误|失败|"
    r"异常|告警|冲突|エラー|失敗|오류|실패))"  # "Failures: 0", "Error count: 0" report that nothing went wrong
    r"[^:：]{0,60}?(?:\w+(?:ed|[ée]e?s?|t|en|ados?|idos?|adas?|idas?)\b|已|済|완료|처리)[^:：]{0,20}[:：]\s*"
    r"(?:0|none|zero|aucune?|keine?|ninguna?|nenhum[a]?|零|无)(?:\s+of\s+\d+)?(?:\s*[^\s\d:：.]{1,12})?\s*[.。]?$"
    r"|^(?:i\s+|we\s+)?(?!pass|fail|error|skipp|warn|reject|declin)\w+ed\s+(?:0|zero|none)\s+(?:of\s+\d+\s+)?"
    r"(?!errors?\b|failures?\b|warnings?\b|issues?\b|problems?\b)[a-z]+\s*[.]?$"  # "Refunded 0 of 3 orders."
)
"""A report line whose count is zero ("Employees updated: none", "已生成发票：0 张"); not a count of
errors, failures, warnings and the like ("Failures: 0"), which is a success."""

_ZH_SELF = re.compile(r"我|为您|帮您|给您|替您|为你|帮你|^(?:已|已经)(?:成功)?(?:将|把)|(?:办|处理|弄|做|改|修)好了")
"""A Chinese completion the agent claims as its own (我已为您取消): not demoted by a refusal beside it."""

_STATUS_LINE = re.compile(
    r"^(?:status|estado|statut|[ée]tat|r[ée]sultat|resultado|ergebnis|stand|situa[çc][ãa]o|結果|状態|対応結果|실시\s?내용|"
    r"상태|결과|実施内容)\s*[:：]\s*"
)
"""A status line of a markdown report ("Status: not done"): negated, it reports nothing done."""

_NEGATED: dict[str, re.Pattern[str]] = {
    "en": re.compile(r"\b(?:not|no|never|none|nothing|only|unable|without)\b"),
    "zh": re.compile(r"不|没|无|未|非|仅|只"),
    "fr": re.compile(r"\bne\b|\bn'|\bpas\b|\bjamais\b|\baucun|\brien\b|\bimpossible|\bsans\b|\bseul\w*"),
    "de": re.compile(r"\bnicht|\bkein|\bnie\b|\bnichts\b|\bunm[öo]glich|\bohne\b|\bnur\b"),
    "es": re.compile(r"\bno\b|\bnunca\b|\bning[úu]n|\bninguna\b|\bnada\b|\bimposible|\bsin\b|\bs[óo]lo\b|\bsolamente\b"),
    "pt": re.compile(r"\bn[ãa]o\b|\bnunca\b|\bnenhum|\bnada\b|\bimposs[íi]vel|\bsem\b|\bapenas\b|\bs[óo]\b"),
    "ja": re.compile(r"ない|ません|せず|ず[、,]|ずに|そのまま|不可|対象外|のみ"),
    "ko": re.compile(r"않|없|못|불가|아닙|아니|만\s?가능|그대로"),
}
"""Negation (and restriction) words per language: a statement holding none is no refusal."""
_REGRET = re.compile(
    r"\b(?:unfortunately|regrettably|sadly|i\s+am\s+afraid|i\s+am\s+(?:so\s+|very\s+|really\s+)?sorry|we\s+are\s+sorry|"
    r"apologi[sz]e)\b|很遗憾|遗憾的是|抱歉|不好意思|对不起|可惜"
)
"""Regret markers: with a negation in a text that has no other cue, the text states a blocking fact."""
_REGRET_INTL = re.compile(
    r"\b(?:malheureusement|d[ée]sol[ée]e?|leider|bedauer\w*|lamentablemente|lo\s+siento|desafortunadamente|"
    r"infelizmente|sinto\s+muito|lamento)\b|申し訳|残念|恐れ入り|あいにく|죄송|유감|아쉽"
)


_CHECKED = re.compile(
    r"\b(?:i|we)\s+(?:have\s+|had\s+)?(?:just\s+|now\s+|already\s+|also\s+|carefully\s+)*(?:checked|looked|reviewed|"
    r"searched|verified|investigated|examined|inspected|queried|pulled\s+up|located|took\s+a\s+look|looked\s+into)\b"
    r"|查询|查看|核实|核查|检查|确认了|v[ée]rifi|regard|consult|examin|gepr[üu]ft|nachgesehen|angesehen|revisad|"
    r"comprobad|consultad|verifiquei|consultei|analisei|確認いた|確認しま|確認했|확인했|확인하였|조회했"
)
"""An investigation report ("I checked your booking"): not the request done, nor an answer by itself."""


_GUESS = re.compile(
    r"\b(?:guess|guessing|assume|assuming|assumptions?|speculate|presume|annehmen|vermuten|raten|supposer|deviner|"
    r"pr[ée]sumer|suponer|adivinar|asumir|supor|adivinhar|presumir)\b|猜|推测|假设|想定|推測|추측|가정"
)
"""Words of guessing: a negated guess ("I'd rather not assume") is caution, not a refusal of the request."""

_NO_NEED = re.compile(
    r"\b(?:no\s+need|not\s+(?:needed|necessary|required)|pas\s+(?:besoin|n[ée]cessaire)|n'[ée]tait\s+pas\s+n[ée]cessaire|"
    r"nicht\s+(?:n[öo]tig|erforderlich|notwendig)|no\s+(?:fue|es|era)\s+necesario|no\s+hace\s+falta|"
    r"n[ãa]o\s+(?:foi|[ée]|era)\s+(?:necess[áa]rio|preciso))\b|必要はありません|必要はございません|必要はなかった|필요가\s?없|필요\s?없|不需要|无需|没必要"
)
"""A negated need ("no changes were needed"): a negation about something else, never a refusal."""
_NEG_FR_STRICT = re.compile(r"\bpas\b|\bjamais\b|\baucun\w*|\brien\b|\bne\s+\w+\s+plus\b|\bn'\w+\s+plus\b")
"""French negation proper (ne … pas / jamais / aucun / rien / plus), not the restrictive ne … que."""
_GO_AHEAD = re.compile(
    r"\b(?:proceed|go\s+ahead|go-ahead|authori[sz]e)\b|\((?:yes/no|y/n)\)"
    r"|\b(?:confirm|approve)\b(?=[^.?]*\b(?:want|should|proceed|go\s+ahead|ok(?:ay)?\s+to|before|this|that|it)\b)"
    r"|\b(?:confirmer|confirmez|bestätigen|fortfahren|confirmar|confirme|prosseguir|continuar)\b"
    r"|确认|是否继续|是否执行|是否现在执行|确定要|よろしいですか|ご確認|진행할까요|진행하시겠|확인해"
)
"""A go-ahead question: what it asks about has not been done yet, so claims before it are preparation."""
_FURTHER = re.compile(
    r"\b(?:also|as\s+well|too|additionally|another|next|other|else|aussi|également|auch|también|tambi[ée]n|tamb[ée]m)\b"
    r"|也|还|另外|顺便|下一步|接下来|然后|次に|次の|も|도|다음"
)
"""A further action ("Shall I also ...?"): an offer after a completion, which keeps it act (corpus rule 7)."""
