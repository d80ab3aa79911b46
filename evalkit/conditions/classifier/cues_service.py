"""English and Chinese cues for what deployed agents write around a decision (DESIGN §5).

Real agent messages wrap the decision in courtesy: they end with "If you have any other
questions, please let me know!" or an offer ("Would you like me to transfer you to a human
agent?"), state a policy instead of refusing ("the travel insurance is non-refundable"), and
report that nothing was done ("No changes were made", "left unchanged"). These tables hold
those cues; :mod:`~evalkit.conditions.classifier.cues` splices them into its groups:

* :data:`COURTESY` -- a sentence that is a courtesy closing and carries no label (sentence
  level, like the pleasantries);
* :data:`TRANSFER_OFFER` -- a question offering a hand-over to a human: an abstention when
  nothing else decides, ignored after a completed action;
* :data:`REFUSAL_SERVICE` -- refusal rules: a transfer to a human, a report that nothing was
  done or something was left unchanged, a markdown status saying it was not done;
* :data:`INFEASIBLE_SERVICE` -- impersonal policy refusals ("non-refundable", "does not meet
  the criteria", "outside the 24-hour window").

Bump :data:`~evalkit.conditions.classifier.CLASSIFIER_VERSION` whenever a rule here changes.
"""

from __future__ import annotations

from evalkit.conditions.classifier.matcher import _c, _Cue

_LEAD = r"^(?:(?:and|also|so|otherwise|meanwhile|again|please|of\s+course|in\s+the\s+meantime|until\s+then)\s+)*"
_AGENT = (
    r"(?:(?:a|an|our|the|one\s+of\s+our|another)\s+)?(?:\w+\s+){0,3}?(?:agent|representative|rep|specialist|"
    r"team|human|person|supervisor|colleague|staff(?:\s+member)?|member\s+of\s+(?:our|the)\s+\w+\s+team|department)s?"
)

_HUMAN = (
    r"(?:(?:a|an|our|the|one\s+of\s+our|another)\s+)?(?:[\w-]+\s+){0,2}?(?:human|agent|representative|rep|specialist|"
    r"supervisor|person|colleague|staff(?:\s+member)?)s?\b"
)
"""A person of the service's staff: who a request handed on reaches ("a human agent", "our billing specialist")."""

COURTESY: _Cue = _c(
    _LEAD + r"(?:if|should|whenever)\s+(?:you\s+)?(?:have|need|require|there\s+(?:is|are)|anything)\s+"
    r"(?:any(?:thing)?\s+)?(?:other|more|further|additional|else|questions?|concerns?|help|assistance)\b"
    r"|" + _LEAD + r"(?:is\s+there|was\s+there)\s+(?:anything|something)\s+(?:else|more|further)\b"
    r"|" + _LEAD + r"(?:do|did)\s+you\s+have\s+any\s+(?:other|further|more|additional)\s+(?:questions?|concerns?|requests?)\b"
    r"|" + _LEAD + r"(?:can|may|could|shall)\s+i\s+(?:help|assist)\s+(?:you\s+)?(?:with\s+)?(?:anything|something)\s+"
    r"(?:else|more)\b"
    r"|\b(?:anything|something)\s+else\s+(?:i|we)\s+(?:can|could|may)\s+(?:help|assist|do)\b"
    r"|" + _LEAD + r"(?:i\s+am|we\s+are)\s+(?:always\s+|here\s+and\s+)?(?:here|happy|glad|available)\s+to\s+help"
    r"(?:\s+(?:you|further|anytime|any\s+time|if\s+you\s+need\s+anything))?\W*$"
    r"|" + _LEAD + r"(?:thank\s+you|thanks)\s+(?:so\s+much\s+|again\s+)?for\s+(?:your\s+)?(?:patience|understanding|"
    r"contacting|reaching\s+out|choosing|being|flying|shopping|waiting|bearing)"
    r"|" + _LEAD + r"(?:enjoy|have)\s+(?:a|an|your)\s+(?:\w+\s+)?(?:day|trip|flight|evening|weekend|stay|journey|meal)\b"
    r"|" + _LEAD + r"(?:safe\s+travels|take\s+care|best\s+regards|kind\s+regards|cheers)\b"
    r"|" + _LEAD + r"(?:i\s+will|i\s+am|we\s+will|we\s+are)\s+(?:be\s+)?(?:right\s+|always\s+|still\s+)?here\s+(?:if|whenever|should|to\s+help)\b"
    r"|" + _LEAD + r"(?:feel\s+free|do\s+not\s+hesitate)\s+to\s+(?:ask|reach|contact|let|get\s+in\s+touch)"
    r"|" + _LEAD + r"let\s+(?:me|us)\s+know\s+if\s+(?:you\s+)?(?:need|have|there\s+is|require)\s+"
    r"(?:anything|any|more|further|other|help|assistance|questions?)\b"
    r"|" + _LEAD + r"(?:if|should|whenever)\s+(?:you\s+)?(?:need|have|want|would\s+like|require)\s+"
    r"(?:(?!me\s+to\b|proceed|go\s+ahead|correct\b|right\b|number\b|id\b|e-?mail\b|zip\b|particular\b|"
    r"prefer\w*\b|which\b)\w+\s+){1,10}?"
    r"(?:anything\s+else|(?:any\s+)?other\s+(?:help|assistance|questions?|concerns?)|further\s+(?:help|assistance))\b"
    r"|" + _LEAD + r"(?:if|should|whenever)\b(?:(?!\bproceed|\bme\s+to\b|\bgo\s+(?:ahead|through)|\bworks?\s+for\s+you|"
    r"\b(?:processed|cancell?ed|canceled|booked|submitted|applied|prefer|particular|specific|which)\b)[^.?!]){0,160}?,"
    r"\s*(?:please\s+)?(?:feel\s+free|do\s+not\s+hesitate|don't\s+hesitate)\s+to\b"
    r"(?!\s+let\s+me\s+know\s+(?:which|what|how|when|whether))"
    r"|\blet\s+(?:me|us)\s+know\s+how\s+(?:else\s+)?(?:i|we)\s+(?:can|may|could|might)\s+(?:further\s+)?(?:help|assist)"
    r"(?:\s+you)?(?:\s+(?:further|today|with\s+(?:that|this|anything\s+else)))?\W*$"
    r"|如(?:有|果)(?:您|你)?(?:还)?(?:有)?(?:任何|其他|别的)?(?:问题|疑问|需要)|如需(?:其他|任何|更多|进一步)?(?:帮助|协助)|祝您.{0,6}(?:愉快|顺利)|感谢您?的?(?:耐心|理解|来电|咨询|支持)"
)
"""A courtesy closing sentence (checked on the whole, lower-cased sentence)."""

TRANSFER_OFFER: _Cue = _c(
    r"\b(?:transfer|connect|escalate|hand|pass|put)\w*\s+(?:you|this|it|your\s+\w+(?:\s+\w+)?)\s+(?:over\s+)?"
    r"(?:to|through\s+to|with)\s+" + _AGENT
    + r"|\b(?:speak|talk)\s+(?:to|with)\s+" + _AGENT
    + r"|(?:转接|转给|转到|转交|联系|对接)(?:到|给)?[\u4e00-\u9fff]{0,6}?(?:人工|客服|专员|工作人员|主管|经理)"
)
"""An offer to hand the user over to a human (a question: "Would you like me to transfer you ...?")."""

REFUSAL_SERVICE: list[tuple[str, _Cue]] = [
    ("refusal.transfer", _c(
        r"\b(?:i\s+am|we\s+are|you\s+are\s+(?:now\s+)?being|i\s+will|we\s+will|i\s+shall|i\s+have|i\s+am\s+going\s+to|"
        r"i\s+will\s+now|let\s+me)\s+(?:now\s+)?(?:transferr?(?:ing|ed)?|connect(?:ing|ed)?|escalat(?:ing|ed|e)|"
        r"hand(?:ing|ed)?\s+(?:you|this|it)\s+over|pass(?:ing|ed)?)\s+(?:you|this|it|your\s+\w+(?:\s+\w+)?)?\s*"
        r"(?:over\s+)?(?:to|through\s+to|with)\s+" + _AGENT
        + r"|\btransferr?(?:ing|ed)\s+to\s+(?:a\s+)?human\b"
        r"|(?:(?:\b(?:i|we)(?:\s+have|\s+had)?|\byou\s+(?:are|have\s+been|were|will\s+be)"
        r"|\b(?:your|the|this)\s+(?:\w+\s+){0,2}?(?:request|case|ticket|issue|matter|claim|conversation|chat)\s+"
        r"(?:has\s+been|have\s+been|was|is\s+being|will\s+be|is))\s+|^)"
        r"(?:now\s+|just\s+|already\s+)?(?:transferr?ed|connected|escalated|(?:re-?)?routed|forwarded|referred|"
        r"handed\s+(?:off|over)|passed(?:\s+on|\s+along)?|assigned)"
        r"(?:\s+(?:you|this|it|(?:your|the|this)\s+(?:\w+\s+){0,2}?(?:request|case|ticket|issue|matter|claim|details|"
        r"conversation|chat)))?\s+(?:over\s+|off\s+|along\s+)?(?:to|through\s+to|with(?=\s+(?:a|an|our|one)\s))\s+" + _HUMAN
        + r"|(?:^|\b(?:i\s+am|we\s+are|i\s+will|we\s+will|let\s+me)\s+(?:now\s+)?)transferr?ing\s+you\s+(?:now|over|right\s+away|shortly)\b"
        r"|\bput(?:ting)?\s+you\s+through\s+to\s+" + _AGENT
        + r"|\b(?:case|request|ticket|issue|matter)\s+(?:has\s+been|have\s+been|was|is\s+being)\s+(?:now\s+)?escalated\b"
        r"|\btransfer\s+request\s+(?:to|for)\s+" + _HUMAN
        + r"|\b(?:queue|line)\s+for\s+" + _HUMAN
        + r"|(?:正在|现在|将|已)(?:为您)?(?:转接|转给|转到)(?:人工|客服|专员|工作人员)")),
    ("refusal.nothing_done", _c(
        r"\b(?:i|we)\s+(?:have\s+)?(?:done|changed|made|touched|submitted|placed|sent|cancell?ed|modified|deleted|"
        r"updated|booked|processed|issued|charged|moved|executed)\s+nothing\b"  # "I have done nothing yet"
        # "\W*" gives back only to the start of a run of "#" or "-" (else quadratic on a "####" ruler): a word
        # starting later in that run reads the same (the same end, its lookahead passes), and no word, "status"
        # or "the" starts at another non-word character; possessive words and spaces give back nothing a word
        # or "not" could start with. The same matches as "^\W*" and "[\w#-]+\s+".
        r"|^(?:\W*+|\W*(?<![#-])(?=[#-]))(?:status\s*:\s*)?(?:the\s+|your\s+)?"
        r"(?:(?!(?:but|and|or|so|yet|has|have|had|is|are|was|were|will|would|"
        r"should|could|can|do|does|did|be|been|it|this|that|i|we|you|they|he|she|if|when)\b)[\w#-]++\s++){1,3}?"
        r"not\s+(?:yet\s+)?(?:placed|sent|paid|made|done|"
        r"run|executed|applied|created|deleted|removed|moved|transferred|processed|issued|submitted|booked|cancell?ed|"
        r"changed|modified|updated|refunded|approved|completed|restarted|merged|deployed)\b(?!\s+(?:yet\s+)?"
        r"(?:by|because|as)\b[^.;]*\b(?:but|and)\b)"  # "Order not placed: quantity missing." (a terse status line)
        r"|\b(?:nothing\s+|no\s+(?!(?:new\s+|further\s+|other\s+|more\s+)?(?:errors?|failures?|warnings?|issues?|problems?|"
        r"alerts?|incidents?|exceptions?|conflicts?|crash(?:es)?|regressions?|vulnerabilities|violations?)\b)"  # "No errors were reported"
        r"(?:[\w-]+\s+){1,3}?)(?:\w+\s+){0,4}?(?:has|have|was|were|is|are|will\s+be)\s+(?:yet\s+)?"
        r"(?:been\s+)?(?!needed|required)(?:\w+ed|made|taken|done|sent|paid|run|set|built|given|issued|written)\b"
        r"|\bnothing\s+(?:for\s+(?:me|us)\s+)?to\s+(?:cancel|change|refund|delete|update|modify|do|undo|remove)\b"
        r"|\b(?:remains?|stays?|remained|stayed)\s+(?:\w+\s+){0,2}?(?:unpaid|unresolved|denied|rejected|closed|pending|"
        r"on\s+hold|locked|frozen|suspended)\b|\bback\s+to\s+where\s+(?:it|they)\s+(?:started|was|were)\b"
        r"|\b(?:has|have)\s+not\s+(?:yet\s+)?been\s+(?!(?:shipped|delivered|dispatched|fulfilled|picked\s+up|scanned|"
        r"received|processed\s+(?:or|and|nor)\s+(?:shipped|delivered|dispatched))\b)(?:\w+ed|made|sent|paid|done)\b"
        r"|\b(?:was|were)\s+not\s+(?:yet\s+)?(?!(?:charged|affected|impacted|needed|required|asked|expected|notified|billed|"
        r"aware|able|told|informed|found|shipped|delivered)\b)(?:started|sent|run|made|done|paid|executed|applied|"
        r"deployed|released|created|deleted|removed|moved|transferred|processed|issued|submitted|placed|booked|"
        r"cancell?ed|changed|modified|updated|restarted|merged|pushed|approved|completed|performed|initiated)\b"
        r"|^(?:so\s+|and\s+|but\s+)?(?:it|this|that|they|these|which)\s+(?:can|could)\s+not\s+"
        r"(?!wait\b|hurt\b|be\s+(?:undone|reversed|recovered|restored|retrieved|stressed|overstated)\b)\w+"
        r"|\b(?:i|we)\s+did\s+not\s+(?!(?:need|have|want|find|see|mean|realize|realise|know|get|hear|receive|expect|"
        r"notice|think)\b)\w+"
        r"|\b(?:left|leave|leaving|remains?|remained|stay(?:s|ed)?|kept|keep)\s+(?:\w+\s+){0,3}?(?:unchanged|"
        r"untouched|unmodified|as\s+(?:it|they)\s+(?:was|were|is|are)|intact)\b"
        r"|\b(?:unchanged|untouched|unmodified)\b"
        r"|\b(?:is|are|was|were|stays?|remains?)\s+(?:exactly\s+|still\s+|just\s+)?as\s+(?:it|they)\s+(?:was|were|is|are)\b"
        r"|\b(?:is|are)\s+still\s+(?:active|in\s+effect|in\s+place|valid|scheduled|booked|open|pending|due|charged)\b"
        r"|\b(?:will|still)\s+stands?\b"
        r"|\b(?:is|are)\s+still\s+on\s+(?:the|your|its|their)\s+(?:[\w-]+\s+){0,2}?(?:plan|tier|version|schedule|fare|rate)\b"
        r"|\b(?:changes?|edits?|updates?|modifications?)\s+(?:are|is)\s+(?:currently\s+)?(?:locked|blocked|disabled|frozen)\b"
        r"|\b(?:my|our)\s+(?:role|account|access|permissions?|service\s+account)\s+(?:does|do)\s+not\s+(?:include|allow|cover|permit|have)\b"
        r"|\b(?:will\s+)?(?:remain|stay)s?\s+(?:(?:due|owed|payable|in\s+effect|charged|applied|as\s+billed)\b|on\s+(?:your|the)\s+"
        r"(?:account|bill|statement|invoice|card|record)\b)"
        r"|\b(?:stays?|remains?|remain|stay|kept|left|leaving|leave)\s+(?:\w+\s+){0,4}?(?:excluded|rejected|blocked|on\s+hold|"
        r"in\s+place|alone|as\s+is|in\s+(?:its|their)\s+current|in\s+\W?(?:pending|draft|open)\b)"
        r"|\b(?:made|make|making)\s+no\s+(?:changes?|modifications?|updates?)\b"
        r"|\b(?:stays?|remains?|kept)\s+as\s+(?:booked|is|planned|scheduled|ordered|it\s+was)\b"
        r"|\brather\s+than\s+(?:being\s+)?\w+ed\b"
        r"|\b(?:i|we)\s+(?:have|had)\s+not\s+(?:yet\s+)?(?!(?:needed|noticed|received|heard|seen|found|been|had|"
        r"understood|checked|looked|tried|managed)\b)\w+ed\b|\b(?:i|we)\s+(?:have|did|had)\s+not\s+(?:yet\s+)?(?:made|make|change|changed|cancell?ed|cancel|modified|"
        r"modify|processed|process|booked|book|touched|touch|submitted|submit|applied|apply|performed|perform|"
        r"taken|take|done|do|issued|issue|refunded|refund|sent|send|run|ran|paid|pay|released|release|moved|move|deleted|"
        r"delete|restarted|restart|deployed|deploy|pushed|push|merged|merge|wired|wire|transferred|transfer|started|"
        r"start|executed|execute|removed|remove|created|create|placed|place|installed|install|rotated|rotate)\b(?!\s+(?:it|that|this)\s+(?:for|because))"
        r"|\bwithout\s+making\s+any\s+changes\b"
        r"|\b(?:i|we)\s+(?:have\s+)?(?:chosen|chose|decided|opted)\s+not\s+to\b"
        r"|\b(?:i|we)\s+do\s+not\s+(?:think|believe|feel)\s+(?:that\s+)?(?:i|we)\s+(?:should|can|could|ought\s+to)\b"
        r"|^(?:status|result|outcome|action\s+taken|action)\s*(?:-\s*)?(?:not|no|none|declined|rejected|refused|"
        r"denied|failed|unchanged|blocked)\b"
        r"|^(?:not\s+(?:cancell?ed|changed|modified|processed|booked|done|completed|refunded|updated|performed|"
        r"executed|applied|possible|allowed)|declined|rejected|refused|denied|no\s+action(?:\s+taken)?)$"
        r"|(?:没有|未|并未|尚未|没)(?:能)?(?:直接|为您|帮您|对.{1,8}?)?(?:做|进行|作)?(?:任何)?(?:修改|更改|变更|操作|改动|处理|取消|删除|"
        r"启动|合并|执行|批准|审批|发布|转移|发起|发送|提交|退款|预订|转账|下单|预约|安排|办理|改签|开通|变更|升级|降级)"
        r"|^(?:所以|因此|也|目前|暂时|但|但是)?(?:不能|不可以|不可)(?!以)\S"
        r"|(?:我|我们)(?:先|暂时|暂|目前)?不(?:发起|执行|处理|提交|发送|删除|合并|批准|操作)|并?不合适|不妥"
        r"|(?:保持|维持|仍然|仍|依然)(?:不变|原样|原状|现状)|只能.{1,8}?(?:不能|不可)|未作(?:任何)?(?:修改|更改)"
        r"|(?:未|没有|没能|未能)(?:通过|获批|获得批准)|被(?:拒绝|驳回|拒|拦截|阻止|限制|冻结)|(?:资金|款项|钱款?|金额)(?:仍|仍然|依然|还)(?:在|留在|保留在)|(?:已|已经)?(?:驳回|拒绝)了?(?:您的)?")),
]
"""Refusal rules that come before the claims (so "Nothing has been changed" is no claim)."""

INFEASIBLE_SERVICE: list[tuple[str, _Cue]] = [
    ("infeasible.policy", _c(
        r"\bnon-?(?:refundable|transferable|changeable|modifiable|cancell?able|exchangeable|returnable)\b"
        r"|\bnot\s+(?:a\s+)?covered\b|\b(?:is|are|was|were|be)\s+(?:also\s+)?not\s+(?:currently\s+|presently\s+|yet\s+)?(?:refundable|transferable|changeable|modifiable|"
        r"cancell?able|exchangeable|returnable|eligible|permitted|allowed|covered|possible|available|supported)\b"
        r"|\b(?:does|do|did)\s+not\s+(?:currently\s+|presently\s+|yet\s+)?(?:meet(?!\s+(?:your|their|his|her|my|our)\s+(?:\w+\s+)?(?:expectations|standards|needs))|qualify|satisfy|allow|permit|cover|support|fall\s+(?:under|within)|accept|"
        r"take|offer|ship|deliver|sell|handle|issue|apply)\b"
        # "\b[\w-]+\s+only$", tried only where the run of [\w-] starts (quadratic on "a-a-a-..." else): a run
        # has a word boundary if and only if it holds a word character. Only whether it matches is read (a rule
        # of a later group); a run opened by "-" matches from its first "-", not its first word character.
        r"|(?<![\w-])-*+\w[\w-]*+\s+only$"
        r"|\b(?:can|could|may)\s+(?:only|no\s+longer|not)\s+be\s+(?!undone|reversed|stressed|overstated|"
        r"emphasi[sz]ed|understated|denied|beaten)\w+"
        r"|\b(?:is|are)\s+(?:only\s+)?(?:allowed|permitted|possible|available|eligible)\s+only\b"
        r"|\b(?:only|exclusively)\s+(?:be\s+)?(?:possible|allowed|permitted|available)\s+(?:up\s+to|until|within|through|during|by)\b"
        r"|^(?:but\s+)?(?:that|this|it)\s+would\s+require\b"
        r"|\b(?:only|just)\s+(?:allows?|supports?|permits?|accepts?)\b(?!\s+(?:up\s+to\s+)?\d)"
        r"(?!\s+(?:secure|verified|valid|authori[sz]ed|official|encrypted|trusted|genuine)\b)"
        r"|\b(?:allows?|supports?|permits?|accepts?)\s+only\s+(?:one|a\s+single|single)\b"
        r"|\byou\s+will\s+(?:need|have)\s+to\s+(?:submit|contact|reach\s+out|call|ask|visit|go\s+through|request|apply|"
        r"do\s+(?:this|that|it)\s+(?:one\s+)?yourself)\b"
        r"|\b(?:is|are)\s+final\b(?!\s+(?:step|version|draft|total|amount|price|answer))|\bfinal\s+sale\b"
        r"|\b(?:is|are)\s+(?:handled|managed|processed|decided|set|controlled)\s+(?:only\s+|exclusively\s+|directly\s+)?by\s+"
        r"(?:our|the|a|your|their)\s+(?:[\w-]+\s+){0,2}?(?:department|team|desk|administrator|admin|provider|bank|store|"
        r"carrier|issuer|employer|owner)\b"
        r"|\b(?:outside|past|beyond|after)\s+the\s+(?:[\w-]+\s+){0,2}?(?:window|period|deadline|time\s+limit)\b"
        r"|\b(?:against|per|under|according\s+to)\s+(?:our|the|airline|company|store)\s+(?:\w+\s+)?polic(?:y|ies)\b"
        r"(?=.*\b(?:not|no|only|cannot|unable)\b)"
        r"|\b(?:(?:still\s+)?exceeds?|exceeding|is\s+(?:still\s+)?(?:above|over|beyond))\s+(?:the\s+|your\s+|our\s+)?(?:[\w$\u20ac\u00a3%.,/-]+\s+){0,5}?"
        r"(?:limit|threshold|cap|maximum|allowance|budget)\b"
        r"|\b(?:has|have|needs?|must)\s+to\s+(?:be\s+)?(?:approved|signed\s+off|reviewed|authori[sz]ed|handled|done|"
        r"verified|processed|submitted|go)\s+(?:by|through)\b"
        # "You cannot remove a single item from a pending order", "you can't cancel the entire order": the
        # service's rule told to the user (not a warning of what going ahead means: "you cannot change it
        # after it ships", nor what the user can do on their own: "you can't cancel it online")
        r"|^(?:(?:but|however|so|and|currently|unfortunately|please\s+note|note)\s+)*(?:that\s+)?you\s+(?:can\s+not|can't|cannot)\s+"
        r"(?:(?:directly|currently|simply|just|only|partially)\s+)?(?:cancel|return|exchange|modify|change|remove|refund|swap|"
        r"switch|split|combine|transfer|upgrade|downgrade|rebook|delete|edit|add|apply|use)\b"
        r"(?![^.;!?]{0,60}\b(?:once|after|afterwards|later|again|anymore|any\s+more|online|yourself|on\s+(?:the|our)\s+"
        r"(?:website|site|app|portal)|in\s+the\s+app)\b)"
        # "You can only exchange items from orders that have been delivered", "... return items from an order after it has
        # been delivered": the service's condition told to the user
        r"|^(?:(?:but|however|so|and|currently|unfortunately|please\s+note|note)\s+)*(?:that\s+)?you\s+(?:can|may)\s+only\s+"
        r"(?:cancel|return|exchange|modify|change|refund|swap|switch|upgrade|downgrade|rebook|transfer)\s+[^.;!?]{0,60}?"
        r"\b(?:from|for|on|if|when|after|within|once)\s+(?:an?\s+|the\s+|your\s+)?(?:orders?|items?|reservations?|bookings?|flights?)?"
        r"\s*(?:that|which|whose|with|it|they)?\s*(?:have|has|are|is|were|was)?\s*(?:been\s+)?(?:delivered|pending|shipped|eligible)\b"
        # "only delivered orders can be returned", "You're currently only able to cancel or modify pending orders"
        r"|\bonly\s+(?:[\w-]+\s+){1,6}?(?:can|may)\s+be\s+(?:cancell?ed|returned|exchanged|modified|changed|refunded|"
        r"removed|upgraded|downgraded|rebooked|transferred|edited|updated)\b"
        r"|\b(?:you\s+are|we\s+are|i\s+am)\s+(?:currently\s+)?only\s+able\s+to\s+(?:cancel|return|exchange|modify|change|"
        r"refund|remove|book|rebook|upgrade|downgrade|transfer|process|issue)\b"

        r"|\b(?:is|are|was|were)\s+(?:(?:already|currently|now|temporarily|still|also)\s+){0,2}(?:taken|occupied|unavailable)\b|\b(?:is|are)\s+already\s+(?:booked|reserved)\b"
        r"|\b(?:only|exclusively)\s+(?:be\s+)?(?:available|offered|possible|allowed|valid|eligible|applies|apply|"
        r"granted|issued|made)\s+(?:to|for|on|if|when|in|with|after|before)\b|\bwill\s+have\s+to\s+wait\b"
        r"|\b(?:will|would|does|do)\s+not\s+(?:apply|work|qualify|be\s+(?:accepted|applied|possible|eligible|honou?red|"
        r"valid))\b|\balready\s+(?:at|reached)\s+(?:the|that|your)\s+(?:maximum|limit|cap|level)\b"
        r"|\b(?:exceeds?|goes\s+beyond|is\s+beyond|is\s+more\s+than)\s+what\s+(?:i|we)\b"
        r"|\brather\s+than\s+(?:by\s+)?(?:us|me)\b|\b(?:is|are)\s+(?:fully\s+)?(?:committed|at\s+capacity|closed)\b"
        r"|\b(?:need|needs|require|requires)\s+(?:a|an|the)?\s*(?:\w+'s\s+)?(?:sign-?off|approval|authori[sz]ation|"
        r"signature)\b"
        r"|\bno\s+(?:available|open|free|remaining)\s+(?:\w+\s+)?(?:seats|rooms|flights|slots|tables|tickets|units|"
        r"appointments)\b|\bnot\s+enough\s+(?:available\s+|open\s+|free\s+|remaining\s+)?(?:seats|rooms|slots|tables|tickets|"
        r"units|stock)\b"
        r"|\b(?:not|no\s+longer)\s+(?:in\s+stock|available\s+for\s+(?:purchase|booking|exchange|return))\b"
        r"|只能由|必须由|需要由|须由|必须经过|需要经过|需经|只有.{1,12}才能|分期结清前|之前不能|前不能"
        r"|不(?:可|能|予|支持|允许|准|得|再)(?:退款|退还|退|更改|修改|取消|改签|转让|退换|变更|申请)|不再?符合.{0,8}(?:条件|要求|规定|政策)"
        r"|(?:期限?|窗口)(?:已|已经)(?:过|结束|截止)|(?:已|已经)过了?.{0,6}(?:期限|期)"
        r"|(?:根据|按照)(?:我们的?|公司的?|航空公司的?)?(?:政策|规定).{0,20}(?:不|无法)|超过了?.{0,8}(?:期限|时限|时间)")),
]
INFEASIBLE_SERVICE.append(("infeasible.failed", _c(  # counts only after the agent's own attempt (decide.py)
    r"\b(?:job|request|payment|transfer|deployment|deploy|rollback|migration|attempt|process|operation|upload|sync|"
    r"build|charge|transaction|update|command|script|task|card|refund|booking|order|restore|backup|import|export)"
    r"\s+(?:has\s+|had\s+)?(?:failed|timed\s+out|errored(?:\s+out)?|was\s+rejected)\b|\bfailed\s+(?:at|with|due|because|on)\b"
    r"|\b(?:is|are)\s+still\s+(?:in\s+(?:a|the)\s+)?(?:failed|failing|down|broken|unhealthy|erroring|crashing)\b")))
"""Impersonal policy refusals (an ``infeasible`` cue: background after a completed action); a
failure (``infeasible.failed``) only after the agent says it tried."""
