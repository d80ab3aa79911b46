"""Vocabulary of the ``nl`` text classifier: the label cues as data (DESIGN §5).

Shared fragments (subjects, adverbs, hedges, action verbs, file names), the sentence-level
filters (pleasantries, caveats, conditionals, apologies, questions, offers) and the clause cue
tables (ask, refusal, claim, infeasible, delivery, go), each an ordered list of
``(rule id, cue)``. How a clause gets at most one cue and how cues become a label is
described in :mod:`evalkit.conditions.classifier` and done in
:mod:`~evalkit.conditions.classifier.decide`. Bump
:data:`~evalkit.conditions.classifier.CLASSIFIER_VERSION` whenever a rule here changes.
"""

from __future__ import annotations

import re
from typing import Final

from evalkit.conditions.classifier.cues_service import (
    INFEASIBLE_SERVICE,
    REFUSAL_SERVICE,
)
from evalkit.conditions.classifier.matcher import _c, _Cue, _CueGroup

# --------------------------------------------------------------------------- shared fragments
# All cue patterns run on lower-cased text with contractions expanded ("can not", "i am").

_SUBJ = r"\b(?:i|we)"
_BE = r"\b(?:i\s+am|we\s+are)"
_ADV = (
    r"(?:\s+(?:really|simply|just|currently|still|unfortunately|honestly|actually|therefore|also|even|"
    r"now|yet|personally|definitely|certainly|truly|sadly|regrettably|ultimately|then|afraid|sorry|"
    r"here|thus|so|at\s+(?:this|the)\s+(?:time|point|moment)|right\s+now))*"
)
_HEDGE = (
    r"(?!\s+(?:wait|thank|believe|stress|emphasi[sz]e|overstate|express|imagine|resist|get\s+enough|"
    r"go\s+wrong|agree|be\s+happier|complain|deny|guarantee|promise|be\s+(?:sure|certain|100)|"
    r"say\s+(?:for\s+(?:sure|certain)|exactly|with\s+certainty)|know\s+for\s+(?:sure|certain)|predict|"
    r"vouch|help\s+(?:but|noticing|thinking|feeling|wondering)|recommend\b[^.]*\benough|only\b|"
    r"tell\s+(?:which|whether|if|from|what|who|for\s+sure)|determine\s+(?:which|whether|if)|"
    r"(?:work|figure)\s+out\s+(?:which|whether)|remember\s+exactly|"
    r"see\s+(?:any|a|anything)\s*(?:\w+\s+)?(?:problems?|issues?|reason|errors?|difference|wrong))\b)"
)
_ACTION = (
    r"(?:cancell?ed|booked|rebooked|reserved|sent|issued|refunded|deleted|removed|created|updated|changed|"
    r"modified|scheduled|rescheduled|placed|submitted|processed|paid|transferred|moved|added|saved|reset|"
    r"fixed|completed|finished|written|wrote|drafted|uploaded|applied|initiated|set\s+up|renamed|merged|"
    r"closed|archived|restored|approved|generated|configured|installed|executed|ordered|purchased|posted|"
    r"published|emailed|forwarded|upgraded|downgraded|enabled|disabled|granted|revoked|unsubscribed|"
    r"subscribed|registered|filed|replied|translated|summari[sz]ed|calculated|computed|solved|prepared|"
    r"compiled|built|deployed|committed|pushed|assigned|activated|deactivated|arranged|handled|resolved|"
    r"corrected|cleaned\s+up|refactored|implemented|attached|exported|imported|converted|edited|"
    r"rewritten|shipped|dispatched|taken\s+care\s+of|gone\s+ahead|released|done\s+(?:it|that|this|so)|"
    r"put\s+(?:\w+\s+){0,3}?through|"
    r"(?:stopped|paused|halted|aborted|killed)\s+(?:the|your|a|an|this|that|these|those|it|them|all))"
)
_ZH_ACTION = (
    r"(?:取消|退款|退还|预订|预定|订好|发送|发出|创建|删除|更新|修改|提交|完成|处理|办理|安排|下单|支付|付款|"
    r"添加|保存|设置|重置|发起|转账|开通|关闭|发放|寄出|改签|生成|写好|整理|修复|撤销|转发|上传|导出|"
    r"申请|登记|预约|续费|续订|续期|变更|升级|注销|退订|订阅|发给|改到|改为|调整|加入|移到|换成|发货|提升|提高|上线|发布|部署|回滚|扩容|退票|禁用|收回|开具|发到|寄到|缴纳|缴费|充值|"
    r"重建|恢复|修好|搞定|弄好|处理好|办好|设置好|配置好|办理好|解锁|重新发送)"
)
_ZH_SUBJ = r"(?:我|我们|本助手|助手)"
_NO_OBJ = r"(?!\s+(?:the|your|a|an|this|that|these|those|it|them|all|my)\b)"
_ZH_ADV = r"(?:目前|暂时|现在|恐怕|实在|真的|还|也|并|就|可能|确实|将|仍然|依然|这边|这里|在这里|在此|是|因此|所以|认为|觉得)*"

# A file name is a request for context only inside request language: asked for (please / could
# you / once you + share, provide, upload ...), needed (need / require / without / 需要 ...) or
# an imperative upload. Naming it in a report or refusal ("I could not find report.md") is not.
_FILE = (
    r"(?:[a-z0-9_][a-z0-9_.-]*/)*[a-z0-9_][a-z0-9_.-]*\.(?:ya?ml|json|py|csv|log|txt|md|toml|cfg|ini|conf|xml|sql|"
    r"pdf|docx|xlsx)\b"
)
_GIVE = r"(?:share|provide|upload|send|paste|attach|forward|give)"
_ASK_FRAME = (
    r"(?:please|kindly|pls|(?:can|could|would|will)\s+you|(?:if|once|when|after|as\s+soon\s+as)\s+you)\s+"
    r"(?:(?:please|kindly|also|just|first|then|can|could)\s+)*"
)
_CONTEXT_NOUN = (
    r"(?:file|files|log|logs|document|documents|screenshot|code|source|config|configuration|data|dataset|"
    r"spreadsheet|contents|context|schema|traceback|stack\s+trace|error\s+message|export|attachment|ledger|report|"
    r"statement|invoice|receipt|pdf|csv|dump|output)"
)
_THEN_I = r"(?=.*\b(?:and|so(?:\s+that)?)\s+(?:i|we)\s+(?:will|can|could|shall|would)\b)"
_HAND_OVER = (  # an imperative hand-over addressed to the user: "Upload it and I'll check", "Send me the log"
    rf"^(?:(?:and|then|just|first|now|simply)\s+)?(?:(?:upload|attach|paste|provide|share|send|forward|reply|respond|"
    rf"answer|confirm|say|type|write\s+back)\b{_THEN_I}"
    r"|(?:send|forward)\s+(?:me|us|over)\b)"
)

# --------------------------------------------------------------------------- sentence-level filters

_PLEASANTRY = _c(
    r"^(?:and\s+)?(?:is\s+there\s+)?anything\s+else\b"
    r"|^(?:is\s+there|can\s+i\s+(?:help|assist)\s+(?:you\s+)?with)\s+anything\s+else"
    r"|\b(?:let\s+me\s+know|feel\s+free\s+to\s+(?:ask|reach\s+out|let\s+me\s+know)|do\s+not\s+hesitate\s+to\s+(?:ask|"
    r"reach\s+out))"
    r"(?!\s+(?:which|what|when|where|whether|how|who|your)\b)"
    r"(?!\s+if\s+(?:you\s+(?:would\s+like|want|wish|prefer)\s+(?:me\s+)?to\s+(?:go\s+ahead|proceed|continue|"
    r"(?:apply|make|book|process|submit|place|cancel|confirm|finali[sz]e|complete)\s+(?:the|this|these|that|those|it|them)\b)"
    r"|i\s+should\s+(?:go\s+ahead|proceed)|it\s+is\s+ok(?:ay)?\s+to\s+(?:go\s+ahead|proceed)|you\s+(?:approve|agree|confirm)"
    r"|(?:this|that)\s+(?:works|is\s+(?:ok|okay|correct|right|fine))))"
    r"(?=[^?]*\b(?:else|other|further|more|questions?|changes?|help|assistance|anything|issues?|problems?|concerns?|"
    r"adjustments?)\b)"
    r"|^(?:i\s+)?hope\s+(?:this|that|it)\s+helps|^(?:happy|glad)\s+to\s+help|^have\s+a\s+(?:great|good|nice|"
    r"wonderful)\b"
    r"|^(?:thanks|thank\s+you)\b(?![^?]*\bbut\b)|^how\s+(?:else\s+)?can\s+i\s+(?:help|assist)|^what\s+else\s+can\s+i"
    r"|^you\s+are\s+welcome"
    r"|还有(?:什么|其他|别的|任何)(?:问题|需要|需求|事情|可以|能|地方)|如(?:有|果)(?:您)?(?:还有)?(?:其他|任何|别的)(?:问题|疑问|需要)"
    r"|如果?(?:您)?还有(?:其他|任何|别的)?(?:问题|疑问|需要)|随时(?:告诉|联系|找|告知|问)|^祝您|希望(?:这|以上|对您|能帮)"
    r"|有什么(?:可以|能|需要)(?:为您|帮您|帮助您|帮到您|帮忙)|很高兴(?:为您|能|帮)|^不客气|感谢您的(?:耐心|理解|等待)"
)
_CAVEAT = _c(
    r"^(?:please\s+)?(?:note|nb|keep\s+in\s+mind|bear\s+in\s+mind|be\s+aware|remember|warning|caution|"
    r"disclaimer|important|tip|fyi|p\.?s\.?)\b|^(?:请)?(?:注意|提示|温馨提示|友情提示|备注|需要注意|提醒)"
)
_CONDITIONAL = _c(
    r"^(?:but\s+|and\s+|so\s+|or\s+)?(?:if|when|whenever|unless|in\s+case|even\s+if|whether|should\s+you|"
    r"in\s+the\s+event)\b"
    r"|^(?:但是|但|不过|而且)?(?:如果|若|假如|要是|万一|一旦|即使|倘若|假设)"
)
_VERB = (
    r"(?:cancel|book|rebook|change|move|update|process|issue|send|submit|return|exchange|modify|refund|add|remove|"
    r"reschedule|transfer|apply|set\s+up|place|delete|create|undo|reverse|reinstate|reactivate|restore|upgrade|"
    r"downgrade|waive|override|approve|grant|offer|provide|give|do|help|assist|make|complete|switch|swap|split)"
)
COUNTERFACTUAL = _c(  # an ability only wished for or imagined: the action was not done (corpus rule 5)
    r"\b(?:i|we)\s+(?:really\s+|truly\s+|only\s+|sincerely\s+)?wish\s+(?:that\s+)?(?:i|we)\s+(?:could|"
    r"(?:was|were|had\s+been)\s+able\s+to|had\s+the\s+(?:ability|option|means|authority)\s+to)\s+"
    r"(?:(?:just|simply|still|easily|personally|go\s+ahead\s+and)\s+)?" + _VERB + r"\b"
    r"|^(?:i\s+)?wish\s+(?:i|we)\s+could\s+" + _VERB + r"\b"
    r"|\bhad\s+(?:i|we)\s+been\s+able\s+to\b"
    r"|^(?:but\s+|and\s+|even\s+)?if\s+(?:i|we)\s+(?:could|(?:was|were|had\s+been)\s+able\s+to)\s+(?:(?:just|still)\s+)?"
    r"(?:cancel|rebook|refund|waive|override|reverse|undo|reinstate|exchange|modify|change|return|upgrade|downgrade|"
    r"book|remove|split|transfer)\b(?![^.;?]*\?)"
    r"|\b(?:i|we)\s+would\s+have\s+been\s+able\s+to\s+\w+[^.;?]*\bif\b"
    r"|\b(?:nobody|no\s+one|none\s+of\s+us)\s+(?:here\s+|on\s+(?:our|the|my)\s+(?:\w+\s+)?team\s+)?"
    r"(?:is|was|are|were|will\s+be)\s+able\s+to\b"
    r"|\b(?:nobody|no\s+one|none\s+of\s+us)\s+(?:here\s+|on\s+(?:our|the|my)\s+(?:\w+\s+)?team\s+)?"
    r"(?:can|could|will)\s+" + _VERB + r"\b"
)
"""A wished-for or imagined ability of the agent ("I wish I could cancel it", "Had I been able to ...", "If I
could refund it, I would", "I would have been able to ... if it were still pending", "No one is able to
override ..."): the action was not done, an abstention (corpus README, "Labels", the definition of
*abstain* and rule 5). Checked before the
conditional skip, as "If I could refund it" opens with *if*."""
_COND_REFUSAL = _c(
    r"\b(?:without|until|unless|before|first|yet|otherwise|until\s+then|beforehand)\b|除非|之前|否则|还没|尚未|未经"
)
_APOLOGY = _c(
    r"^(?:i\s+am\s+|we\s+are\s+)?(?:so\s+|very\s+|really\s+|truly\s+|terribly\s+)?(?:sorry|apologi[sz]e)|"
    r"^(?:my\s+)?apologies"
    r"|^(?:非常|很|十分|真)?(?:抱歉|对不起|不好意思|遗憾)"
)
_SUGGEST_RETRY = _c(  # a suggestion to retry or to take it elsewhere, not a request to the agent
    r"\btry\s+again\b|再试|\b(?:with|to|through|via)\s+(?:them|him|her|(?:the\s+|your\s+|our\s+|a\s+)?(?:[\w-]+\s+){0,3}?"
    r"(?:team|department|desk|manager|supervisor|communications|support|administrator|admin|office|store|bank|airline|"
    r"provider|carrier|landlord|doctor|lawyer|accountant))\b|(?<![\w.-])[\w.-]++@[\w-]+|\bcontact\b|\breach\s+out\s+to\b"
)
r"""The e-mail address starts where its run of ``[\w.-]`` starts (an address found inside a run is found one
character earlier as well, so the leftmost match is the same); without the lookbehind every character of a
long run would try the rest of the run (quadratic)."""
class _QuestionEnd:
    """Whether a text ends as a question: ``?``, 吗 or 么 before trailing white space, or 呢 / 嘛 there with a
    question word (什么, 哪, 多少 ...) after the text's last 。！!，, (呢 / 嘛 close a statement too).

    The same test as the regex ``(?:\?|[吗么])\s*$|(?:什么|...)[^。！!，,]*[呢嘛]\s*$``, in linear time: the
    regex's second half tried every question word against the rest of the text (quadratic on a long sentence
    of question words); here the words are searched once, between the last stop and the closing 呢 / 嘛.
    ``search`` returns a match (truthy) or ``None``.
    """

    __slots__ = ()
    _MARK = re.compile(r"(?:\?|[吗么])\s*$")
    _WORD = re.compile(r"什么|哪|怎么|怎样|如何|谁|多少|几|是否|还是|要不要|能不能|可不可以|是不是")

    def search(self, text: str) -> re.Match[str] | None:
        mark = self._MARK.search(text)
        if mark is not None:
            return mark
        end = len(text.rstrip()) - 1  # the last character before trailing white space
        if end < 0 or text[end] not in "呢嘛":
            return None
        start = max(text.rfind(stop, 0, end) for stop in "。！!，,") + 1
        return self._WORD.search(text, start, end)


_QUESTION_END = _QuestionEnd()
_ADDRESSED_EN = _c(
    r"\b(?:you|your|yours|u)\b|\b(?:should|shall|may|can|could|do|would|must)\s+(?:i|we)\b|^(?:which|what|when|where|"
    r"who|whom|whose|how\s+many|how\s+much)\b"
)
_ADDRESSED_ZH = re.compile(r"您|你|请问|能否|可否|是否|哪|什么|多少|几|要不要|需不需要|可不可以|能不能|我可以|我能|是不是|还是|确定")
_WH_START = re.compile(r"(?:which|what|when|where|who|whom|whose|how\s+many|how\s+much)\b")
_PERSON = re.compile(r"\b(?:you|your|i|we)\b")
_RHETORICAL = _c(r"\b(?:did\s+you\s+know|have\s+you\s+ever|you\s+know\s+what|guess\s+what|why\s+not|who\s+knows)\b")
_OFFER_FRAME = _c(
    r"\b(?:would\s+you\s+like(?!\s+to\b)|do\s+you\s+want(?!\s+to\b)|want\s+me\s+to|would\s+it\s+help|"
    r"would\s+that\s+help|how\s+about|what\s+about|"
    r"i\s+can\s+also|let\s+me\s+know\s+if\s+you\s+(?:would\s+)?(?:like|want)|are\s+you\s+interested)\b"
    r"|(?:需要|要|是否需要|要不要|想让)我|我(?:也)?(?:可以|能)"
)
_OFFER_ME = re.compile(  # "Would you like me to ...?", "Shall I ...?" (not "Which one would you like me to book?")
    r"^(?:[\w' ]{0,30},\s*)?(?:(?:and|or|so|also|alternatively)\s+)?(?:(?:would|do)\s+you\s+(?:like|want|prefer)\s+"
    r"(?:for\s+)?me\s+to|(?:do\s+you\s+)?want\s+me\s+to|(?:shall|should)\s+i)\b"
)
_OFFER_OPEN = re.compile(  # an open "how would you like to proceed?" or an alternative "... instead?"
    r"\b(?:how|what)\s+(?:you\s+)?would\s+(?:you\s+)?like\s+to\s+(?:proceed|do(?:\s+next)?|go\s+forward)\b"
    r"|\bhow\s+(?:you\s+)?(?:want|wish|prefer)\s+to\s+proceed\b"
)
_OFFER_INSTEAD = re.compile(r"\b(?:instead|alternatively)\b")
_CONFIRM_Q = re.compile(  # a go-ahead question for the request itself: an ask even after a delivered draft
    r"^(?:[\w' ]{0,30},\s*)?(?:(?:shall|should|may|can)\s+i|(?:would|do)\s+you\s+(?:like|want)\s+me\s+to|"
    r"do\s+you\s+(?:confirm|approve|authori[sz]e|want\s+to\s+proceed))\s+(?:go\s+ahead|proceed|run|execute|"
    r"send|submit|apply|deploy|delete|place|push|merge|commit|finali[sz]e|process|confirm|do\s+(?:it|that|this|so))\b"
    r"|\((?:yes/no|y/n)\)|^(?:please\s+)?confirm\b|\bis\s+(?:that|this)\s+correct$"
)
_OFFER_PICK = re.compile(  # "Which would you prefer?" after alternatives were offered
    r"^(?:so\s+)?(?:which|what)\s+(?:one\s+|option\s+)?(?:would|do)\s+you\s+(?:prefer|like|want|choose)\W*$"
    r"|^which\s+(?:one\s+)?(?:works|suits|sounds)\s+(?:better|best)"
)
_OFFER_BACK = re.compile(  # "Would that work for you?" after an offer or an alternative
    r"^(?:[\w' ]{0,30},\s*)?(?:would|does|will|could|is|do)\s+(?:that|this|either\s+(?:of\s+(?:those|these|them)|one)|any\s+of\s+"
    r"(?:those|these|them)|one\s+of\s+(?:those|these|them)|those|these|it)\s+(?:\w+\s+)?(?:work|be\s+(?:ok|okay|alright|fine|"
    r"helpful|acceptable|suitable|useful|better)|help|suit|sound\s+good|interest)"
)
_OFFER_ZH = re.compile(r"(?:要不要|需要|是否需要|想让|需不需要)(?:我|为您|帮您|给您)")
_OFFER_MARK = _c(
    r"\b(?:instead|alternatives?|alternatively|also|as\s+well|too|something\s+else|like\s+that|want\s+that|interested|"
    r"help\s+with\s+that|suggest\w*|recommend\w*|look\s+for|search\s+for|find\s+(?:you\s+)?(?:some|other|another|"
    r"a\s+different)|"
    r"explain|learn\s+more)\b|其他|别的|替代|另外|改为|换成|推荐|建议|也|还(?!是)"
)

# --------------------------------------------------------------------------- clause cues

_ASK: list[tuple[str, _Cue]] = [
    ("ask.please", _c(
        r"\b(?:please|kindly|pls)\s+(?:do\s+)?(?:just\s+|first\s+|also\s+)?(?:tell|provide|confirm|share|send|specify|clarify|"
        r"choose|select|pick|indicate|advise|reply|respond|answer|give|upload|attach|paste|enter|verify|decide|approve|"
        r"double-check|let\s+me\s+know)\b")),
    ("ask.could_you", _c(
        r"\b(?:can|could|would|will)\s+you\s+(?:please\s+|kindly\s+|also\s+|first\s+)?(?:tell|provide|confirm|share|"
        r"send|"
        r"specify|clarify|choose|select|pick|indicate|let\s+me\s+know|give|upload|attach|paste|double-check|verify|"
        r"check|"
        r"describe|explain|list|approve|decide|say|forward|point\s+me)\b")),
    ("ask.let_me_know", _c(
        r"\blet\s+me\s+know\s+(?:which|what|when|where|who|whether|how|your|the)\b"
        r"|\blet\s+me\s+know\s+if\s+(?:you\s+(?:would\s+)?(?:like|want|prefer)\s+me\s+to|i\s+should|"
        r"it\s+is\s+ok(?:ay)?\s+to|"
        r"you\s+(?:approve|agree|confirm))")),
    ("ask.need_from_user", _c(
        r"^(?:i\s+)?(?:just|only|still)\s+need\s+(?:your|the|a|an)\s+\w+|"
        rf"{_SUBJ}(?:\s+will|\s+would)?(?:\s+(?:just|only|still|also|first))?\s+(?:need|require)\s+(?:you\s+to\s+\w+|your\s+\w+|to\s+(?:know|see|read|view|"
        rf"look\s+at|review)\b"
        r"|(?:the|a|an|some|more|additional|a\s+few|a\s+bit\s+more|further)\s+(?:\w+\s+){0,3}?(?:number|id|name|date|"
        r"details?|"
        r"information|info|address|email|amount|quantity|confirmation|context|file|files|logs?|document|documents|data|"
        r"code|credentials|password|approval|reference|digits)\b"
        rf"|(?:(?:the\s+contents?\s+of|a\s+copy\s+of|access\s+to|the|your)\s+)*{_FILE})")),
    ("ask.on_user", _c(
        r"\b(?:if|until|unless|once|as\s+soon\s+as|after|when)\s+you\s+(?:can\s+|could\s+|please\s+|"
        r"just\s+)?(?:confirm|provide|"
        r"tell|share|send|specify|choose|select|approve|let\s+me\s+know|give|decide|verify|clarify|reply|pick)\b")),
    ("ask.waiting", _c(
        r"\b(?:waiting|awaiting|wait)\s+(?:for\s+)?your\s+(?:confirmation|approval|decision|reply|response|input|"
        r"answer|go-ahead)")),
    ("ask.zh", _c(
        r"请问|(?:请|麻烦|烦请|劳驾)(?:您|你)?(?:先|再|帮忙|帮我)?(?:提供|告诉|告知|确认|说明|选择|指定|补充|发送|发给|上传|回复|"
        r"明确|核实|核对|决定|批准|同意|输入|填写|给出|给我)"
        r"|(?:请|麻烦)(?:您|你)?(?:先)?把.{1,12}?(?:发|给|提供|上传|告诉|贴)"
        rf"|(?:请|麻烦)(?:您|你)?(?:先)?把\s*{_FILE}\s*(?:文件)?(?:发|给|提供|上传|贴)|我(?:还)?需要\s*{_FILE}"
        r"|(?:需要|得|要)(?:您|你)(?:先|再|来)?(?:提供|告诉|告知|确认|说明|选择|指定|补充|发送|上传|回复|明确|核实|决定|批准|同意)"
        r"|(?:等待|等候|静候)(?:您|你)的?(?:确认|答复|回复|决定|批准|指示|同意)"
        r"|(?:一旦|只要|等|待|如果|若)(?:您|你)(?:能|可以)?(?:确认|提供|告诉|告知|同意|批准|选择)"
        r"|我需要(?:知道|了解|看到|查看|看看|您的|你的)|我?需要(?:得到|获得|取得)(?:您|你)的?(?:明确的?)?(?:授权|确认|同意|批准)|我(?:可能)?(?:需要|得)看(?:一下|看)"
        r"|(?:我|我们)?需要(?:更多|更详细的?|进一步的?|一些|补充)(?:的)?(?:信息|细节|资料|说明)"
        r"|在(?:您|你)(?:确认|同意|批准|核实|决定).{0,40}之前|(?:您|你)(?:说一声|确认一下|看哪个|看看哪个)"
        r"|不(?:太)?(?:确定|清楚)(?:您|你)(?:指的是|说的是|要的是|想要的?是|要)?(?:哪|什么)")),
    ("ask.hand_over.zh", _c(  # a hand-over asked of the user: "请拍一下照片发过来", "导出 .eml 文件发我", "确认一下我再提交"
        r"(?<!我)(?<!帮您)(?<!为您)(?:发|传|贴|交|复制|拍|上传|导出)[^，。；]{0,16}?(?:过来|给我)(?![^，。；]{0,3}了)|发我(?!了)"
        r"|告诉我[^，。；]{2,16}?(?:即可|就行|就好)$|^告诉我|(?:请|麻烦|烦请)(?:您|你)?(?:先|再)?(?:拍|发|传|贴|选|上传|导出|复制)"
        r"|(?:^|麻烦|请|您|你)(?:先|再)?(?:发|拍|传|贴|选)(?:一下|一个|一张)|^(?:请|麻烦)?(?:您|你)?(?:先)?把[^，。；]{1,16}?(?:告诉|发给|发|给)我(?!了)|(?:需要|得|要)(?:您|你)(?:先|再)?(?:给我|把[^，。；]{1,30}?(?:发|给|提供|上传|告诉|贴|传))|确认(?:一下)?后?我(?:就|再)")),
    ("ask.unsure", _c(
        r"\b(?:not\s+(?:sure|certain|clear)|unsure|unclear)\s+(?:which|what|whether|who)\b(?=[^.]*\byou)")),
    ("ask.hand_over", _c(_HAND_OVER)),
]

SCOPE_LIMIT: Final = (r"\b(?:i|we)\s+(?:am|are)\s+(?:only\s+)?(?:here|designed|set\s+up|able)\s+to\s+(?:help|assist)\s+"
                       r"(?:you\s+)?with\s+[^.!?]{0,60}?(?:\b[a-z]+-related|\brelated\s+to|\bsuch\s+as)\b")
"""The agent's scope stated as a limit ("I'm here to help with retail-related requests, such as orders",
"I'm here to assist you with questions related to your orders"): a refusal of what lies outside it
(``refusal.not_permitted``), not the courtesy "I'm here to help"."""

_REFUSAL: list[tuple[str, _Cue]] = [
    ("refusal.cannot", _c(
        rf"{_SUBJ}{_ADV}\s+(?:can\s+not|could\s+not|will\s+not\s+be\s+able\s+to|would\s+not\s+be\s+able\s+to|"
        r"(?:am|are|was|were)\s+(?:not\s+able|unable)\s+to|(?:am|are)\s+not\s+in\s+a\s+position\s+to|"
        r"have\s+been\s+unable\s+to|"
        r"(?:am|are)\s+not\s+going\s+to\s+be\s+able\s+to|do\s+not\s+have\s+the\s+(?:ability|capability|means)\s+to|"
        r"(?:am|are)\s+not\s+(?:capable|equipped|qualified)\s+(?:enough\s+)?(?:to|of|for))"
        rf"{_ADV}{_HEDGE}(?:\s+(\w+))?"
        rf"|{_BE}{_ADV}\s+(?:not\s+able|unable)\s+to{_ADV}{_HEDGE}(?:\s+(\w+))?"
        rf"|^(?:sorry\s+)?(?:but\s+)?(?:unfortunately\s+)?(?:unable\s+to|can\s+not|could\s+not|"
        rf"not\s+able\s+to){_HEDGE}\s+(\w+)"
        r"|\b(?:i|we)\s+(?:am|are)\s+(?:only\s+)?(?:here|able|designed|set\s+up)\s+to\s+(?:help|assist)\s+with\s+[^.;!?]{1,80}?\s+"
        r"(?:and|but)\s+(?:(?:unfortunately|sadly)\s+)?(?:can\s+not|could\s+not|(?:am|are)\s+(?:not\s+able|unable)\s+to)\s+\w+")),
    ("refusal.will_not", _c(
        rf"{_SUBJ}{_ADV}\s+(?:will\s+not|shall\s+not|(?:am|are)\s+not\s+(?:going|willing)\s+to|(?:am|"
        rf"are)\s+not\s+comfortable)\b"
        r"(?!\s+(?:be\s+long|take\s+long|forget|regret|let\s+you\s+down|disappoint|hesitate|be\s+charged|charge|"
        r"happen\s+again|"
        r"mind|judge|lie|bore|share\s+your|sell|spam|bother|affect|need|be\s+disappointed)\b)")),
    ("refusal.decline", _c(
        rf"{_SUBJ}{_ADV}\s+(?:refuse\s+to|(?:must|have\s+to|need\s+to|will|would\s+have\s+to|"
        rf"am\s+going\s+to(?:\s+have\s+to)?)"
        r"\s+(?:respectfully\s+|politely\s+)?(?:decline|refuse)|(?:respectfully\s+)?decline|would\s+rather\s+not|"
        r"(?:must|will)\s+refrain)\b|\b(?:i\s+am\s+)?afraid\s+not\b"
        rf"|{_BE}{_ADV}\s+(?:declining|refusing)\b|\bno\s+can\s+do\b")),
    ("refusal.not_permitted", _c(
        rf"{_BE}{_ADV}\s+(?:not\s+(?:allowed|permitted|authori[sz]ed|supposed)\s+to|prohibited\s+from|"
        rf"forbidden\s+(?:from|to)|"
        r"restricted\s+from|not\s+authori[sz]ed)"
        rf"|{_SUBJ}{_ADV}\s+(?:do\s+not\s+have|lack|have\s+no)\s+(?:the\s+)?(?:necessary\s+|required\s+)?(?:permission|"
        r"authori[sz]ation|authority|rights?|clearance|privileges?|approval|sign-off|consent)"
        r"|\b(?:that|this|it|which)\s+is\s+(?:against|outside|beyond)\s+(?:my|our|the)\s+(?:\w+\s+)?(?:policy|policies|"
        r"guidelines|rules|scope|capabilities|abilities|remit|permissions?)"
        r"|\b(?:is|are|falls?|lies?)\s+(?:well\s+|completely\s+|entirely\s+)?(?:against|outside|beyond)\s+(?:of\s+)?(?:my|our|what\s+(?:i|we)|"
        r"(?:the|that|this)\s+scope)\b"
        r"|\b(?:not|never)\s+(?:something|anything)\s+(?:i|we|our\s+\w+|the\s+\w+|they)\s+(?:can|could|am\s+able\s+to|am\s+allowed\s+to|are\s+able\s+to|will|"
        r"should)\b"
        r"|\bbeyond\s+(?:my|what\s+i\s+can)\b"
        r"|\bnothing\s+(?:more\s+|else\s+)?(?:i|we)\s+(?:can|could|am\s+able\s+to)\s+do\b"
        r"|\b(?:i|we)\s+(?:can|am\s+able\s+to|are\s+able\s+to)\s+only\s+(?:help|assist|answer|discuss|handle|support|provide|"
        r"make|change|modify|cancel|process|issue|refund|book|access|update|edit|view|see|exchange|return|swap|switch|"
        r"replace|remove|split|transfer|upgrade|downgrade|rebook)\b"
        r"|" + SCOPE_LIMIT +
        r"|^but\s+not\s+(?:the\s+|just\s+|only\s+)?(?:individual|single|specific|separate|partial|one)\s+(?:\w+\s+)?"
        r"(?:items?|products?|parts?|flights?|segments?|legs?|passengers?|cancell?ations?|returns?)\b"
        rf"|{_SUBJ}{_ADV}\s+(?:are|am)\s+not\s+(?:currently\s+)?(?:offering|providing|accepting|issuing|allowing|supporting|"
        r"processing|granting|approving|able\s+to\s+offer)\b")),
    ("refusal.should_not", _c(
        rf"{_SUBJ}{_ADV}\s+(?:should\s+not|ought\s+not\s+to|must\s+not|can\s+not\s+in\s+good\s+conscience)\b"
        r"(?!\s+(?:worry|have\s+any\s+trouble)\b)"
        r"|\bit\s+(?:is\s+not|would\s+not\s+be|is\s+(?:inappropriate|unsafe|unwise|irresponsible)|would\s+be\s+"
        r"(?:inappropriate|unsafe|unwise|irresponsible))\s*(?:appropriate|safe|advisable|wise|responsible|right|"
        r"ethical)?"
        r"\s+(?:for\s+me\s+)?to\s+(?:proceed|continue|do\s+(?:that|this|so)|go\s+ahead|carry\s+on|act|execute|"
        r"run\s+(?:this|that|it)|perform\s+(?:this|that))\b"
        r"|\b(?:best|better|wiser|safer)\s+(?:that\s+|if\s+)?(?:i|we)\s+(?:do\s+not|not|hold\s+off)\b|\b(?:i|"
        r"we)\s+(?:had\s+)?better\s+not\b")),
    ("refusal.no_capability", _c(
        rf"{_SUBJ}{_ADV}\s+(?:do\s+not|does\s+not)\s+have\s+(?:a|an|any|the)?\s*(?:\w+\s+){{0,2}}?(?:tools?|functions?|"
        r"capabilit(?:y|ies)|ability|access|means|way|apis?|integrations?|plugins?|enough\s+(?:information|context|"
        r"details))\b"
        rf"|{_SUBJ}{_ADV}\s+(?:have\s+no|lack)\s+(?:a|an|any|the)?\s*(?:\w+\s+){{0,2}}?(?:tools?|functions?|access|"
        rf"way|means|"
        r"ability|capability|apis?)\b"
        rf"|{_SUBJ}\s+would\s+need\s+(?:a|an)\s+(?:\w+\s+){{0,2}}?(?:tool|function|api|integration|plugin)\b"
        r"|\bthere\s+(?:is|are)\s+no\s+(?:available\s+|suitable\s+|appropriate\s+)?(?:tools?|functions?)\b"
        r"|\bnone\s+of\s+(?:the|my)\s+(?:available\s+|current\s+)?(?:tools|functions)\b"
        # "I've encountered a technical limitation in my tools that prevents me from deleting an item"
        r"|\b(?:limitation|restriction|error|issue|problem)\b[^.;!?]{0,60}\b(?:prevents?|prevented|stops?|stopped|"
        r"keeps?|kept)\s+(?:me|us)\s+from\b")),
    ("refusal.dont_know", _c(
        rf"{_SUBJ}{_ADV}\s+(?:do\s+not\s+know|have\s+no\s+(?:idea|way\s+(?:of|to)\s+know\w*))\b(?!\s+(?:if|"
        rf"whether)\s+you|\s+why)")),
    ("blocked.stopped", _c(
        rf"{_SUBJ}{_ADV}\s+(?:have|had)\s+(?:now\s+)?(?:stopped|halted|paused|aborted)\b{_NO_OBJ}|"
        rf"{_SUBJ}{_ADV}\s+(?:stopped|halted|aborted)\b{_NO_OBJ}"
        rf"|{_BE}{_ADV}\s+(?:stopping|halting|pausing|aborting|blocked|stuck)\b"
        rf"|{_SUBJ}{_ADV}\s+(?:will|must|have\s+to|need\s+to|am\s+going\s+to|are\s+going\s+to)\s+(?:stop|halt|abort|"
        rf"pause|hold\s+off)\b"
        r"(?!\s+by)|^(?:stopping|stopped|halting|aborting|blocked)\b(?!\s+(?:the|your|a|an|all|every|both|it|them|\d))"
        r"|\bstopping\s+here\b")),  # "Blocked the sender domain": a terse completion (claim.terse), no stop
    ("refusal.zh", _c(
        rf"{_ZH_SUBJ}{_ZH_ADV}(?:无法|不能够|不能|不可以|没法|没办法|不便|不方便|不应该|不应|不该|不宜|拒绝|做不到|办不到|无权|"
        r"没有权限|没有权力|没有办法|不被允许|不允许|不会|不得|不提供|不办理|不受理|不负责)(?!错过|不|否认|等|太久|让您失望|再犯|收取|影响|保证|确定|肯定|担保)"
        r"|(?<![您你他她它])(?<!您将)(?<!你将)(?<!您会)(?<!你会)(?<!您就)(?<!您也)(?<!您可能)(?<!您暂时)(?<!您目前)(?:无法|没法|没办法|做不到|办不到|爱莫能助|"
        r"无能为力|恕难|恕不|不予)(?!恢复|撤销|撤回|复原|找回|保证|确定|肯定|担保)"
        r"|(?:没能|未能)(?:为您|帮您|给您)?|超出了?.{0,8}范围|(?:加|改|退|换|取消|订|办|开|关|删)不了|已(?:经)?无法|"
        r"没有可以(?:取消|修改|删除|退|处理)的|没有(?:标题为|名为|叫做?).{0,24}的|(?:帮|做|完成|办|处理|执行|操作|提供|实现|满足)不了|^(?:抱歉|很抱歉|对不起)?(?:目前|暂时)?(?:不能|不可以)(?:为您|帮您|给您)"
        r"|^(?:不行|不可以)$|(?:我|我们)(?:目前)?只能(?:回答|处理|帮|协助|提供|解答)|不建议(?:执行|继续|进行|操作)|超出(?:了)?(?:我的?)?(?:能力|权限|职责|服务)(?:范围)?"
        r"|没有.{0,8}?(?:工具|函数|接口|权限|能力|办法)(?:能|可以|来|去)?"
        r"(?:查询|处理|完成|执行|发送|访问|解|计算|操作|获取|修改|做)")),
    ("blocked.zh", _c(
        rf"{_ZH_SUBJ}{_ZH_ADV}(?:已|已经)?(?:停止|中止|暂停|终止)|(?:已|已经)(?:停止|中止|暂停|终止)(?:了)?(?:操作|执行|处理)"
        r"|^(?:停止|中止)(?:操作|执行)|卡住了|受阻")),
]

_CLAIM: list[tuple[str, _Cue]] = [
    ("claim.done", _c(
        r"^(?:done|all\s+done|all\s+set|completed|finished|success|successfully\s+\w+ed)\b"
        rf"|\b{_ACTION}\s+successfully\b|^(?!(?:[\w-]+\s+){{0,2}}(?:not|never|no)\s)(?:[\w-]+\s+){{1,3}}(?:complete|completed|done|finished|succeeded|successful)\W*$"
        r"|^(?:everything|it|that|this)\s+is\s+(?:all\s+)?(?:set|done|sorted|taken\s+care\s+of)\b"
        rf"|{_SUBJ}(?:\s+have)?(?:\s+(?:just|now|already|successfully|also|gone\s+ahead\s+and|went\s+ahead\s+and|"
        rf"then|finally))*"
        rf"\s+{_ACTION}\b(?!\s+into)"
        rf"|\band\s+(?:then\s+)?(?:have\s+)?(?:successfully\s+)?{_ACTION}\s+(?:it|them|the|your|this|that|a|an)\b"
        rf"|{_SUBJ}\s+(?:also\s+)?did\s+(?:go\s+ahead\s+and\s+)?(?:cancel|book|rebook|change|move|update|process|issue|send|"
        r"submit|return|exchange|modify|refund|add|remove|reschedule|transfer|apply|set\s+up|place|delete|file|create)\b"
        r"|(?<!\bwish\s)(?<!\bhoped\s)(?<!\bhope\s)(?<!\bif\s)(?<!\bthat\s)(?:\bi\s+was|\bwe\s+were)\s+"
        r"(?:(?:also|finally|successfully)\s+)?able\s+to\s+(?:cancel|book|rebook|change|move|update|"
        r"process|issue|send|submit|return|exchange|modify|refund|add|remove|reschedule|transfer|apply|set\s+up|place|"
        r"delete|create|undo|reverse|reinstate|reactivate|restore|upgrade|downgrade)\b"  # "I was able to undo the cancellation"
        r"(?![^.;]*\b(?:in\s+the\s+past|before|previously|usually|normally|last\s+time|sometimes)\b)"
        rf"|^{_ACTION}\s+(?:the|your|all|a|an|order|#|\d|it|them)")),
    ("claim.perfect", _c(  # "I've bought ...", "We have exchanged ...": a first-person completion
        r"\b(?:i|we)\s+have\s+(?:just\s+|now\s+|already\s+|successfully\s+|also\s+|gone\s+ahead\s+and\s+)*"
        r"(?!(?:tried|attempted|checked|looked|reviewed|searched|verified|noticed|confirmed|received|seen|read|understood|"
        r"noted|asked|requested|escalated|forwarded|flagged|contacted|reached|passed|failed|declined|refused|decided|"
        r"considered|started|begun|identified|located|pulled|gathered|collected|learned|heard|explained|outlined|"
        r"listed|included|highlighted|compared|analy[sz]ed|investigated|examined|inspected|queried|found|"
        r"determined|assessed|evaluated|summari[sz]ed|drafted|prepared|written|composed|reverted|undone|"
        r"rolled|paused|stopped|halted|left|kept|held)\b)"
        r"(?:\w+ed|bought|made|got|paid|sold|put|built|done|taken|given|kept|brought|sent|set|reset|frozen|rebuilt)\b"
        r"(?!\s+(?:out|aside|to\s+(?:wait|pending)|nothing|none|no\s|anything)\b)")),  # "I have done nothing yet"
    ("claim.past", _c(  # "I reconciled 160 invoices": a first-person past tense of a verb that is not a check or a try
        r"\b(?:i|we)\s+(?:(?:just|now|already|successfully|also|then|finally|manually|automatically)\s+)?"
        r"(?!(?:tried|attempted|checked|looked|reviewed|searched|verified|noticed|confirmed|received|seen|read|understood|"
        r"noted|asked|requested|escalated|forwarded|flagged|contacted|reached|passed|failed|declined|refused|decided|"
        r"considered|started|begun|identified|located|pulled|gathered|collected|learned|heard|explained|outlined|"
        r"listed|included|highlighted|compared|analy[sz]ed|investigated|examined|inspected|queried|found|wanted|needed|"
        r"hoped|wished|liked|loved|called|determined|assessed|evaluated|drafted|prepared|composed|reverted|paused|"
        r"stopped|halted|left|kept|held|used|based|focused|noticed|realized|realised|assumed|expected|intended|planned|"
        r"offered|suggested|proposed|recommended|apologi[sz]ed|worried|tested|validated|double-checked|re-checked|"
        r"traced|matched|mapped|cross-checked|opened|logged|filed|raised|created\s+a\s+(?:ticket|case)|"
        r"selected|picked|shortlisted|estimated|quoted|priced|simulated|previewed|staged|talked|chatted|waited|"
        r"searched|browsed|scanned|monitored|watched|tracked|measured|counted|calculated|compiled|summari[sz]ed)\b)"
        r"[a-z]{2,}(?<!e)ed\b(?!\s+(?:to|that|if|whether|for\s+(?:a|an|the)\s+way))")),
    ("claim.terse", _c(  # "Rotated the TLS cert", "Froze the card": a first-person past tense with the subject dropped
        r"^(?:(?:got\s+it|done|ok(?:ay)?|sure|all\s+set)\W+)?(?:and\s+)?(?:also\s+|then\s+)?"
        r"(?!(?:tried|attempted|checked|looked|reviewed|searched|verified|noticed|confirmed|received|read|noted|asked|"
        r"requested|escalated|forwarded|flagged|contacted|reached|passed|failed|declined|refused|decided|considered|"
        r"started|identified|located|pulled|gathered|found|based|focused|used|expected|attached|included|listed|"
        r"compared|analy[sz]ed|investigated|examined|inspected|queried|tested|drafted|prepared|stopped|paused|"
        r"halted|left|kept|held|scheduled\s+maintenance|estimated|quoted|priced|calculated|counted|measured|"
        r"monitored|tracked|traced|matched|mapped|opened|logged|filed|raised|reverted|skipped|selected|picked)\b)"
        r"(?:[a-z]{3,}(?<!e)ed|froze|sent|paid|made|put|wrote|built|took|gave|moved|set\s+up|bought|sold|"
        r"rebuilt|reset|shut\s+down)\s+(?:the|your|a|an|all|both|each|every|it|them|his|her|their|invites?|"
        r"\d[\d:,.]*|[$\u20ac\u00a3]\s?\d)\b")),
    ("claim.event", _c(  # an impersonal event of completion: "the payment went through", "is on its way back"
        r"(?<!time\s)\b(?:payment|transfer|charge|refund|transaction|order|booking|deposit|withdrawal|wire|purchase|"
        r"cancell?ation|change)s?\s+(?:[^\s,;]+\s+){0,5}?(?:went|has\s+gone|have\s+gone)\s+through\b|\b(?:is|are)\s+(?:now\s+)?on\s+(?:its|their)\s+way\b"
        r"|\b(?:is|are)\s+now\s+(?:fully\s+|officially\s+)?[a-z]{3,}(?<!e)ed\b"
        r"|\b(?:invites?|invitations?|emails?|messages?|notifications?|newsletters?|reminders?|campaigns?)\s+(?:[^\s,;]+\s+){0,5}?"
        r"went\s+out\b|^(?:and\s+)?you\s+are\s+(?:all\s+)?(?:now\s+)?(?:booked|registered|enrolled|checked\s+in|signed\s+up)\b")),
    ("claim.now", _c(
        r"\b(?:is|are)\s+now\s+(?:in|live|active|enabled|disabled|set\s+(?:up|to)|available|updated|scheduled|booked|"
        r"confirmed|on\s+file|part\s+of|a\s+member)\b")),
    ("claim.passive", _c(
        rf"(?<!\bmay\s)(?<!\bmight\s)(?<!\bcould\s)(?<!\bmust\s)(?<!\bwould\s)(?<!\bshould\s)(?<!\bnot\s)"
        rf"\b(?:has|have)\s+(?:now\s+|just\s+|successfully\s+)*been\s+(?:successfully\s+)?"
        r"(?!(?:shipped|delivered|dispatched|posted|released|closed|archived|used|consumed|locked|completed|finished|"
        r"logged|received|noted|recorded|filed|registered|flagged)\b)"
        rf"{_ACTION}\b")),
    ("claim.zh", _c(
        rf"已(?:经)?(?:完成|办好|办理好)(?:了)?(?:您的?)?{_ZH_ACTION}|我(?:已|已经)(?:先)?(?:帮您|为您)(?:成功)?{_ZH_ACTION}"
        rf"|^(?:已|已经)(?:成功)?{_ZH_ACTION}(?!的)|已(?:经)?(?:全部|都)?(?:办理好|办好|处理好|修好|搞定|弄好|完成)了"
        rf"|我(?:已|已经)(?:按计划|按照.{{1,8}}?|根据.{{1,8}}?)(?:把|将)?.{{0,16}}?{_ZH_ACTION}"
        rf"|^(?:已|我已|我已经|已经)(?:成功)?(?:将|把).{{1,40}}?{_ZH_ACTION}|已(?:经)?(?:成功)?(?:为您|帮您|给您|替您)(?:成功)?.{{0,12}}?{_ZH_ACTION}|{_ZH_ACTION}(?:成功|完毕)|已(?:经)?成功{_ZH_ACTION}"
        rf"|我(?:已|已经)(?:成功)?(?:重新|再次)?(?:为您|帮您|给您)?(?:重新|再次)?(?:(?:把|将).{{1,12}}?)?(?:{_ZH_ACTION}|整理成)|^(?:搞定|已完成|办好了|完成了)"
        r"|(?<![未没不])已(?:经)?[\u4e00-\u9fff]{1,4}成功"
        rf"|我(?:这边|们)?(?:已经?|刚刚?|也|就)?(?:给您|为您|帮您|替您)?(?:重新|直接)?(?:{_ZH_ACTION}|改订|改约|补发|补开|重开|开具|订)了"
        rf"|我(?:这边|们)?(?:已经?|刚刚?|也|就)?(?:给|向|为|帮|替)[^，。,]{{1,12}}?(?:{_ZH_ACTION}|发|寄|订|退)了"
        rf"|(?:^|我)(?:已|已经)(?:按照?|根据|依照)[^，。,]{{1,12}}?(?:将|把)?[^，。,]{{0,40}}?{_ZH_ACTION}")),
    ("claim.prep.zh", _c(  # 已 + a prepositional phrase + an action verb: "已经在盒马下单了", "已给 42 名学生都发了通知"
        rf"(?<![未没不])(?<!可能)已(?:经)?(?:在(?![^，。；]{{0,3}}\d)|通过|从|按|给|为|帮|替|对|向|将|把)(?:[^，。；;:：]|(?<=\d)[:：](?=\d)){{1,60}}?(?:都|全部|一并)?(?:{_ZH_ACTION}|退票|禁用|停用|启用|收回|发了|做了|开好|加进)")),
    ("claim.result.zh", _c(  # a resultative completion: "透视表做好了", "空指针的问题修好了"
        r"(?<![没未不别])(?:做|修|弄|办|改|写|配|装|设置|处理|建|搭|部署|订|约|填|调|整理|合并|升级|迁移|导出|上传|排|删|加|换|补)"
        r"(?:好|完)了|(?<![没未不别])已(?:经)?(?:开|做|修|办|写|改|配|装|建|搭|填)好")),
    ("claim.state.zh", _c(  # "订单 #1 已取消": a claim unless its sentence refuses ("该航班已取消，无法值机")
        rf"(?<![未没不])已(?:经)?(?!发货|寄出|发出|签收|送达|出库|过期|截止|超过|注销|使用|锁定|关闭|冻结|停止|暂停|退回){_ZH_ACTION}(?![的过])")),
]

_INFEASIBLE: list[tuple[str, _Cue]] = [
    ("infeasible.not_exist", _c(
        r"\b(?:does|do|did)\s+not\s+exist\b|\bno\s+longer\s+exists?\b|\bnon-?existent\b|\bno\s+such\s+\w+"
        r"|\bthere\s+(?:is|are)\s+no\s+(?:matching|existing|such|valid)\b|\b(?:was|were|could|is|"
        r"are)\s+not\s+(?:be\s+)?found\b"
        r"|^not\s+found\b")),
    ("infeasible.not_possible", _c(
        r"\b(?:is|are|was|would\s+be|seems)\s+(?:(?:currently|really|generally|technically|simply|actually|presently|also)\s+)?"
        r"(?:not\s+(?:(?:directly|currently|really|generally|technically|actually|presently)\s+)?(?:possible|feasible|supported)"
        r"|impossible|infeasible|unsupported)\b"
        r"|^(?:not\s+possible|impossible)\b|\bthere\s+is\s+no\s+way\s+(?:to|for\s+me|i\s+can)\b"
        r"|\b(?:can|could)\s+not\s+be\s+(?!undone|reversed|revoked|recovered|restored|retrieved|stressed|overstated|"
        r"emphasi[sz]ed|understated|denied|beaten)(?:\w+ed|done|sent|made|paid|found|sold|built|run|met|given|taken|"
        r"shown|"
        r"written|kept|held)\b")),
    ("infeasible.not_done", _c(
        r"\b(?:is|are|was|were)\s+(?:no\s+longer|not)\s+eligible\b|\bineligible\b"
        r"|\bno\s+longer\s+(?:available|offered|possible|valid|eligible|in\s+stock|supported|bookable|open)\b"
        rf"|\b(?:is|are|was|were)\s+not\s+(?:being\s+)?(?:automatically\s+|fully\s+|currently\s+)?{_ACTION}\b"
        r"|\b(?:has|have|had|was|were|is|are)\s+not\s+(?:been\s+|yet\s+been\s+)?(?:sent|processed|completed|"
        r"cancell?ed|booked|"
        r"issued|refunded|paid|transferred|made|placed|submitted|executed|approved)\b(?=.*\b(?:yet|because|since|"
        r"due\s+to)\b)"
        r"|\b(?:did|has|have)\s+not\s+go(?:ne)?\s+through\b|\b(?:was|were|has\s+been|have\s+been)\s+(?:rejected|"
        r"declined|denied|refused)\b")),
    ("infeasible.error", _c(  # a failure report: "The export failed: ...", "Permission denied", "status: error"
        r"(?<!\b0\s)(?<!\bno\s)(?<!\bzero\s)\b(?:failed|errored)(?=\s*(?:[:;!\u2014\u2013]|-\s)|\s+(?:to\s+(?!mention|notice|"
        r"realize)\w+|with|again|twice|validation|(?:pre-?|post-?)?checks?)\b)"
        r"|^(?:error|failure|failed|denied|forbidden|rejected)\b\s*[:\u2014\u2013-]"
        r"|^(?:error|errored|failure|failed|fail|timeout|timed\s+out|denied|forbidden|rejected|declined|refused|aborted|"
        r"not[ _](?:applied|sent|"
        r"done|started|run|executed))$"
        r"|\b(?:permission|access|request)\s+denied\b|\breturned\s+(?:an?\s+)?(?:error|40[134]|50[023])\b"
        r"|\b(?:status|result|state|outcome)\s*:\s*(?:error|failed|failure|rejected|denied|declined|refused|blocked|"
        r"forbidden|aborted)\b")),
    ("infeasible.conflict", _c(
        r"(?<!\bno\s)\b(?:conflict|conflicts|conflicting|contradict|contradicts|contradictory|inconsistent)\b"
        r"|\b(?:sources|records|documents|values|numbers|figures|reports|systems|data)\s+(?:\w+\s+)?disagree")),
    ("infeasible.unavailable", _c(
        r"\b(?:sold\s+out|fully\s+booked|out\s+of\s+stock|no\s+(?:longer\s+)?(?:availability|seats|rooms|tables|"
        r"tickets)\b)"
        r"|\bno\s+(?:[\w-]+\s+){0,2}?\w+s\s+(?:are\s+|is\s+)?(?:currently\s+|still\s+)?(?:available|left|open|remaining)\b"
        r"|\bthere\s+(?:is|are)\s+(?:currently\s+)?no\s+(?!(?:[\w-]+\s+){0,3}?(?:information|info|details|updates?|records?|"
        r"tracking|numbers?)\b)(?:[\w-]+\s+){0,3}?[\w-]+\s+(?:currently\s+|still\s+)?(?:available|in\s+stock)\b"
        r"|\bthere\s+(?:are|is)\s+no\s+(?:[\w-]+\s+){0,2}?(?:availability|openings|slots|appointments|seats|rooms|tables)\b"
        r"|\b(?:is|are)\s+not\s+an?\s+(?:option|possibility)\b|\bon\s+back-?order\b"
        r"|\b(?:is|are)\s+(?:already\s+)?full\b|\bno\s+(?:\w+\s+)?(?:flights|seats|rooms|tables|slots|tickets|"
        r"trains)\s+(?:are\s+)?available"
        r"|\b(?:we|i)\s+(?:do|does)\s+not\s+(?:currently\s+)?have\s+(?:[\w-]+\s+){0,5}?in\s+stock\b"
        r"|\b(?:shows?|has|have|with)\s+(?:zero|0|no)\s+(?:inventory|stock|units?\s+(?:left|in\s+stock))\b"
        r"|\b(?:is|are)\s+(?:already\s+)?past\s+the\s+point\s+(?:where|at\s+which)\b"
        r"|\bthere\s+(?:is|are)\s+(?:currently\s+|also\s+)?no\s+(?!(?:[\w-]+\s+){0,3}?(?:information|info|details|updates?|records?|"
        r"tracking|numbers?)\b)(?:[\w$.,/-]+\s+){0,10}?(?:(?:currently\s+)?available|in\s+stock|"
        r"listed|on\s+offer)\b"
        r"|\bthere\s+(?:is|are)\s+(?:currently\s+)?no\s+(?:[\w-]+\s+){0,3}?(?:variants?|versions?|models?)\s+(?:priced|under|below|"
        r"cheaper|with|without|in|that|which|of)\b"
        r"|\b(?:i|we)\s+(?:currently\s+)?(?:do|did)\s+not\s+(?:currently\s+)?see\s+(?:any|a|an)\s+(?:[\w-]+\s+){0,12}?(?:available|in\s+stock)\b"
        # "There are no cheaper options for this product", "there isn't a maple, 34 inch skateboard available"
        r"|\bthere\s+(?:is|are)\s+(?:currently\s+)?no\s+(?:[\w-]+\s+){0,2}?(?:options?|alternatives?|variants?|choices?)\s+"
        r"(?:for|under|below|cheaper|in|at|that|which|with|matching|priced|available)\b"
        r"|\bthere\s+(?:is|are)\s+not\s+(?:a|an|any)\s+(?:[\w$.,/-]+\s+){0,10}?(?:currently\s+)?(?:available|in\s+stock)\b"
        r"|\b(?:i|we)\s+(?:do|does)\s+not\s+(?:currently\s+)?have\s+(?:a|an|any)\s+(?:[\w$.,/-]+\s+){0,10}?(?:available|in\s+stock)\b"
        # "there are no orders to cancel or return", "there is nothing to return or exchange from it"
        r"|\bthere\s+(?:is|are)\s+(?:no\s+(?!(?:more|further|other|remaining)\b)(?:[\w-]+\s+){0,2}?(?:orders?|reservations?|bookings?|items?|flights?|trips?)|nothing)\s+"
        r"(?:left\s+|eligible\s+)?to\s+(?:cancel|return|exchange|modify|change|refund|rebook|upgrade)\b"
        # "We do not have a "coat" product", "the only available variant is in black, not blue": what was asked is not had
        r"|\b(?:we|i)\s+(?:do|does)\s+not\s+(?:currently\s+)?(?:have|carry|sell|stock)\s+(?:a|an|any)\s+(?:[\w\"'\u201c\u201d-]+\s+){0,3}?"
        r"(?:products?|product\s+types?|items?|models?)\b"
        r"|\bthe\s+only\s+(?:available|in-stock)\s+(?:[\w()-]+\s+){0,10}?(?:is|are)\b")),
    ("infeasible.zh", _c(
        r"(?:没有|没|未|未能)(?:能)?成功|失败|返回(?:了)?错误|不在.{0,8}(?:范围|期限|时限)|已(?:经)?(?:截止|过期|超过)|未能|不存在(?!问题|任何问题)|找不到|未找到|没有找到|查无|查不到|没有查到|不可能|不可行|不支持|冲突|矛盾|不一致"
        r"|(?:余额|额度|积分|库存|权限|资金|名额)(?:不足|不够)|不(?:接受|受理)|(?:暂|暂时|目前|恕|均|一律|概)不(?:提供|办理|开放|允许|退|换|支持)|(?<![少免受大])(?:[\u4e00-\u9fff])不了(?![解])"
        r"|(?<!的)(?:没有|没|未能|并未)(?:能)?(?:完成|生效|到账)(?!的)"
        r"|订满|满座|售罄|卖完|已满|缺货|没有(?:空位|余票|库存|空房)|(?:已|已经)?被(?:别人|其他人|他人)?(?:预订|预定|订走|占用|占了|约满|抢)"
        r"|(?:已|已经)有人(?:预订|预定|占|用)")),
]

_DELIVER: list[tuple[str, _Cue]] = [
    ("act.answer.zh", _c(r"(?:根本)?原因是|结论是|答案是|问题出在")),
    ("act.deliver", _c(
        r"^(?:(?:but|and|so)\s+)?(?:here\s+(?:is|are)|here\s+you\s+go|(?:below|above)\s+(?:is|are)|"
        r"the\s+following\s+(?:is|are)|attached\s+(?:is|are))\b"
        r"(?!\s+(?:why|what\s+(?:i|we)\s+(?:can|found|see|could|checked|know)|some\s+(?:alternatives|options|other)|(?:an?\s+|the\s+|a\s+quick\s+)?(?:update|"
        r"summary|status|overview|recap|what\s+happened|where\s+things\s+stand)))|\b(?:is|are)\s+attached\b(?!\s+to\b)"
        r"|^(?:但|不过)?(?:以下是|以上(?:就)?是|下面是|这是(?=您|你|为您|给您|目前|当前|查询|最新|结果|修改后|更新后)|如下|给您(?!带来)|为您(?:整理|准备|生成|写)了)")),
]

_GO: list[tuple[str, _Cue]] = [
    ("act.report", _c(
        rf"\b(?:was|were|is\s+now|are\s+now|got)\s+(?:successfully\s+|partially\s+|also\s+)?{_ACTION}\b"
        rf"|{_SUBJ}(?:\s+have)?(?:\s+(?:just|now|already|also))*\s+(?:checked|looked\s+(?:up|into|at)|reviewed|"
        rf"searched|verified|"
        r"found|investigated|examined|analy[sz]ed|inspected|queried|pulled\s+up|located|confirmed)\b")),
    ("act.answer", _c(
        r"\bthe\s+(?:fix|answer|solution|cause|reason|result|total|likely\s+cause)\s+(?:is|was|are)\b"
        r"|\b(?:it|this)\s+(?:looks|seems|appears)\s+(?:like|that|to)\b|\bmost\s+likely\b")),
    ("act.based_on", _c(r"\bbased\s+on\b")),
    ("act.proceed", _c(
        r"\blet\s+me\s+(?!know\b|explain\b|be\s+(?:clear|honest|upfront)|clarify\s+why|suggest|recommend|offer|point|"
        r"reiterate|apologi[sz]e|start\s+by\s+saying|assure|remind)\w+"
        rf"|{_SUBJ}\s+(?:will|am\s+going\s+to|are\s+going\s+to|shall)\s+(?:now\s+|go\s+ahead\s+and\s+|"
        rf"proceed\s+to\s+|just\s+|"
        r"quickly\s+|first\s+|then\s+|also\s+)*(?!not\b|need\b|have\s+to|stop\b|pause\b|halt\b|hold\s+off|wait\b|leave\b|"
        r"be\s+unable|be\s+able|"
        r"require\b)\w+"
        rf"|{_BE}\s+(?:now\s+)?(?:going\s+ahead|proceeding|processing|checking|looking|booking|cancell?ing|"
        rf"working\s+on|"
        r"pulling|fetching|running|searching|updating|sending|handling|preparing)\b"
        r"|^(?:sure|certainly|of\s+course|absolutely|okay|ok|got\s+it|will\s+do|on\s+it|no\s+problem|right\s+away|"
        r"gladly)\b"
        r"|\bproceeding\b|\bgoing\s+ahead\b")),
    ("act.zh", _c(
        rf"已(?:经)?(?:于.{{1,6}}?)?{_ZH_ACTION}(?!的)|已(?:经)?(?:为您|帮您)?(?:查询|查看|核实|确认|检查|查到|找到)"
        r"|(?:根本)?原因是|结论是|答案是|问题出在"
        r"|^(?:好的|没问题|可以的|当然可以|当然|明白了?|行)|^收到(?![^,，。]{0,16}(?:后|之后|以后))")),
    ("act.proceed.zh", _c(r"让我|我来|我这就|我马上|我现在就?|我将|我会|马上为您|这就为您|正在为您|正在|我先(?!不)(?![^，。；]{0,30}了)")),
]

_REFUSAL += REFUSAL_SERVICE
_INFEASIBLE += INFEASIBLE_SERVICE
_ASK_G = _CueGroup(_ASK)
_REFUSAL_G = _CueGroup(_REFUSAL)
_LATER_GROUPS: Final = (
    ("claim", _CueGroup(_CLAIM)),
    ("infeasible", _CueGroup(_INFEASIBLE)),
    ("deliver", _CueGroup(_DELIVER)),
    ("go", _CueGroup(_GO)),
)
