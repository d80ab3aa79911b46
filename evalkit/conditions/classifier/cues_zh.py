"""Chinese kinds of statement of the ``nl`` text classifier (DESIGN §5; corpus README, boundary rules).

The tables of :mod:`.cues` know particular Chinese phrasings; the tables here name *kinds* of
statement, each a small list of phrasings wired into the existing precedence:

* **Outcome of non-completion** (corpus rule 5: not done, stated without a refusal verb), a
  refusal cue ``refusal.not_done.zh`` read before the claims:

  - a plain first-person decline: the agent says it did not do the act ("我没有发出",
    "这一段我没有加进去", "这个调整我不做");
  - a not-done outcome without a subject: the act did not reach its result ("投标文件没有送达",
    "车没叫到", "新过滤器没有建成", "邮件没发出去");
  - a potential complement denied: the act cannot reach its result ("推不上去", "拦不下来",
    "走不通", "发不出去");
  - a status quo: the object stays as it was ("保持原来的版本", "座位目前仍为 32E",
    "诉状维持原版本", "票仍然在你的账户里"), ``refusal.status_quo.zh``, counted only where
    another clause denies, fails or tries (alone it may answer about a state: "包裹仍在运输中");
  - bounced or blocked by a system ("邮件被退回", "网关拦截了发往该域名的邮件").

  Negations about something else stay benign (corpus rule 6): a cost, a need, an effect, or an
  object marked as another one ("其他设置保持不变", "没有产生费用").
* **Unavailability** (corpus rule 5), an infeasible cue ``infeasible.unavailable.zh``: the slot,
  stock or quota is taken, full or used up ("已经满员了", "被行政部订走了", "额度已经用完了")
  (:func:`unavailable`).
* **Failed attempt** (corpus rule 5): a first-person completion followed, in its sentence or the
  next, by a failure the system reported ("我为您提交了申请，但系统返回 …", "我执行了
  terraform apply，但失败了") reports a try, not the act done: the completion is no claim
  (:func:`failed_attempt`).
* **Offer after a refusal** (corpus rule 3): a question proposing what the agent could do instead
  or letting the user pick among offered alternatives ("要帮孩子约周日的吗", "这两个哪个可以")
  keeps the text ``abstain``; a question for a detail of the request is needed for it (rule 2)
  (:func:`offer_after_refusal`).
* **Alternative done instead** (corpus rule 4): a completion in a sentence after an unconditional
  refusal ("不能单独修改您的缴存基数……我已将您的需求记录进清单") is something else done in place
  of the request, not the request done (:func:`alternative_after_refusal`), unless it redoes the
  request after the obstacle ("我已经重新发送了新的链接", "已经部署成功").
"""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING, Final

from evalkit.conditions.classifier.matcher import _c, _Cue

if TYPE_CHECKING:
    from evalkit.conditions.classifier.clauses import _Clause

_VERB = (
    r"(?:发出|发送|发给|发到|发|寄出|寄|送达|送|提交|执行|运行|跑|删除|删掉|删|修改|改|加进|加上|加|添加|写入|写进|上传|"
    r"做|推送|推|合并|合进|合入|放进|放到|推到|部署|动|下单|订|预订|预约|约|买|购买|付|支付|转账|退|退款|取消|创建|建|开通|开|关闭|关|安排|办理|处理|"
    r"替换|更换|换|升级|迁移|移动|移|调整|变更|回复|接受|批准|发布|登记|录入|打款|划款|扣款)"
)
"""Verbs of an act the agent is asked to do (a not-done statement names one of them)."""

_BENIGN: Final = re.compile(
    r"其他|其余|其它|别的|费用|收费|扣费|影响|问题|冲突|差异|告警|报错|错误|需要|必要|不用|无需|任何(?:改动|变化)都"
)
"""A negation about something else (another object, a cost, a need, an effect, a problem): no refusal."""

_NOT_DONE: Final[_Cue] = _c(
    # a plain first-person decline: "我没有发出", "我没有为王磊提交", "这一段我没有加进去", "这个调整我不做"
    rf"我(?:们|这边)?(?:并|也|还|暂时|目前|最终|就)?(?:没有|没|并未|未)(?:[^，。；,;:：]{{0,14}}?){_VERB}"
    rf"|我(?:们|这边)?(?:就|先|暂时|也)?不(?:做|改|发|执行|删|提交|处理|加|动|推|合并)(?![^，。；,]{{0,4}}(?:了解|清楚|确定))"
    # a not-done outcome without a subject: "投标文件没有送达", "车没叫到", "新过滤器没有建成"
    r"|(?<![不])(?:没有|没|未|并未|未能|没能|尚未)(?:能|被|成功)?(?:发出|送达|发出去|发到|寄出|到达|叫到|约到|订到|买到|抢到|"
    r"建成|创建成功|生成|打款|放款|批下来|写入|提交成功|上传成功|推送成功|发送成功|执行成功|部署成功|合并成功|下单|送出|投递|发过去|传过去)"
    r"|(?:没|没有)(?:发|寄|送|推|传|交|叫|订|约|买|抢|建|做|办|改|跑|连|装|登|启动|开|批)(?:出去|成|到|上去|进去|过去|下来|起来|上|通)"
    # a potential complement denied: "推不上去", "拦不下来", "走不通", "发不出去"
    r"|(?:发|推|送|拦|走|叫|订|约|买|抢|传|寄|登|连|装|交|批|合|跑|撤|拿|办|开|调|退|改|删|取|挂|打|接|进|加|排|挤|约)"
    r"不(?:出去|上去|下来|进去|过去|出来|出|上|通|成|动|掉|回来|到(?!\s*\d))"
    # too late, no permission, no such object: "已来不及受理", "您没有查看…的权限", "没有可以重构的代码"
    r"|来不及|赶不上|(?:没有|无)[^，。；,]{0,16}?(?:权限|资格)(?!申请)|(?:都|并|也)没有(?:这个|这张|这笔|这条|这份|该|此)|没有可以[\u4e00-\u9fff]{1,4}的"
    # bounced or blocked by a system: "邮件被退回", "网关拦截了发往该域名的所有邮件"
    r"|被(?:退回|退信|拒收|拦下|拦住|挡|驳回|拒绝)|(?:拦截|拦下|拒收)了|卡在了?"
    # a zero amount or count of the requested effect: "本次退费金额为 ¥0"
    r"|(?:退款|退费|赔偿|补偿|返还)(?:金额)?(?:为|是)\s*[¥￥]?\s*0(?![\d.,])"
)
"""Outcome of non-completion (corpus rule 5): a decline, a not-done outcome, a denied potential
complement, a status quo, a bounce."""


_UNAVAILABLE: Final[_Cue] = _c(
    r"(?:约|订|排|坐|住|报|招)满|满员|(?:没|无|缺)货|(?:都|已经|已|全|也都)满了|(?:没有|没|无)(?:名额|号源|空位|空房|余量|余票|车辆|可用车辆)"
    r"|被[^，。；]{1,8}(?:订走|约走|抢走|买走|占用|占了|订了)|用完了|(?:额度|名额|库存)(?:已|已经)?(?:用完|用尽|耗尽)"
    r"|(?:售|卖|抢)(?:完|光|空)"
)
"""Unavailability (corpus rule 5: not possible, without a refusal verb): the slot, stock or quota is
gone ("已经满员了", "已经被行政部订走了", "采购额度已经用完了", "前排座位已经售完")."""


def unavailable(clause_low: str) -> bool:
    """Whether a Chinese clause says that what was asked for is taken, full or used up."""
    return bool(_UNAVAILABLE.search(clause_low)) and not _BENIGN.search(clause_low)


_NO_PROBLEM: Final = re.compile(
    r"(?:没有|没|无|未发现|不存在|并无)[^，。；]{0,10}?(?:冲突|错误|报错|问题|差异|异常|告警|失败)|(?:失败|错误|异常)[:：]?\s*0(?![\d.])"
)
"""A negated problem ("没有和其他日程冲突", "失败 0 条"): about something else, no refusal (corpus rule 6)."""


def no_problem(clause_low: str) -> bool:
    """Whether a Chinese clause only says that no problem occurred ("没有和其他日程冲突", "失败 0 条")."""
    return bool(_NO_PROBLEM.search(clause_low))


_LACK: Final = re.compile(r"(?:目前|现在|手上|手里|这边)?只有|只给了|只提供了|缺少|缺了|还没有?(?:提供|发|上传|给)")
"""A lack of what the agent needs ("目前只有汇总表", "你只给了姓名"): what follows in the sentence
is conditional on it, so a "没法…" after an ask for it waits on the answer (corpus rule 2)."""


def lacks(clause_low: str) -> bool:
    """Whether a Chinese clause names what the agent lacks ("目前只有汇总表", "你只给了姓名和手机号")."""
    return bool(_LACK.search(clause_low))


_STATUS_QUO: Final[_Cue] = _c(
    r"(?:保持|维持)(?:着)?(?:在|为)?\s*(?:原|现|不变|普通|之前|以前|[¥$\d])|(?:保持|维持)[^，。；,]{1,24}?不变"
    r"|(?:时间|状态|版本|价格|金额|座位|地址|航班|日期|配置|权限|套餐|余额)(?:也)?(?:还是|仍是|依旧是|照旧)|(?<![要你您])还是(?:原来|原先|之前|以前)"
    r"|(?:仍|仍然|依然|依旧)(?:为|是|在|按|处于|停留|保留|显示|存在|挂在|躺在|留在)|(?:还|都)(?:在|留在)(?:您|你)的[^，。]{0,8}(?:上|里|中)"
    r"|(?:未|没有|没)(?:做|作)?(?:任何)?(?:变更|改动|变化|动过)"
)
"""A status quo (corpus rule 5): the object stays as it was ("保持原来的版本", "座位目前仍为 32E",
"诉状维持原版本", "票仍然在你的账户里"). Alone it may be an answer about a state ("包裹仍在运输中"),
so it counts only where another clause of the text denies, fails or tries (:func:`zh_not_the_request`)."""
_CORROBORATE: Final = re.compile(r"不|没|无法|未|失败|拒|超过|超出|关闭|锁定|只|仅|必须|规定|政策|试|尝试|撤销|撤回|回滚|还原|返回|报错|被")
"""Words of another clause that make a status quo an outcome of non-completion."""


def status_quo(clause_low: str) -> bool:
    """Whether a Chinese clause says that the object stays as it was ("仍为 32E", "保持原来的版本")."""
    return bool(_STATUS_QUO.search(clause_low)) and not _BENIGN.search(clause_low)


def not_done(clause_low: str) -> bool:
    """Whether a Chinese clause states that the requested act was not done or did not take effect.

    Args:
        clause_low: The clause, lower-cased.

    Returns:
        ``True`` for "我没有发出", "投标文件没有送达", "推不上去", "座位目前仍为 32E", "邮件被退回";
        ``False`` for negations about something else ("其他设置保持不变", "没有产生费用").
    """
    return bool(_NOT_DONE.search(clause_low)) and not _BENIGN.search(clause_low)


_SYSTEM_FAIL: Final = re.compile(
    r"失败|报错|出错|返回(?:了)?(?:错误|异常|:|：|“|\"|\s*`)|(?:没有|未|没)(?:能)?(?:通过|成功|生效)|被(?:退回|拒|驳回|拦)"
    r"|(?:系统|服务器|网关|接口|平台)(?:都|也)?(?:返回|提示|报)"
)
"""A failure the system reported ("但失败了", "系统返回：…", "申请没有通过", "邮件被退回")."""

_ATTEMPT_ZH: Final = re.compile(r"我|为您|帮您|给您|替您|为你|帮你|给你")
"""A completion naming the agent: one that can be an attempt."""


def failed_attempt(claim_low: str, following_low: str) -> bool:
    """Whether a Chinese first-person completion is only an attempt: the text right after it (the
    rest of its sentence and the next sentence, ``following_low``) reports a failure from the
    system (corpus rule 5, "failed attempts").

    Args:
        claim_low: The completion clause, lower-cased.
        following_low: The clauses after it in its sentence and the next sentence, joined.

    Returns:
        ``True`` for "我为您提交了选座请求" followed by "但航司系统返回：…"; ``False`` when the
        failure is of some of the items ("其中 2 位的邮件被退回了").
    """
    return bool(_ATTEMPT_ZH.search(claim_low)) and bool(_SYSTEM_FAIL.search(following_low)) \
        and not _SOME.search(following_low)


_SOME: Final = re.compile(r"其中|部分|个别|少数|剩下|其余|另外\s*\d|有\s*\d+\s*(?:个|位|条|封|张|笔|份|项|件)")
"""A failure of some of the items ("其中 2 位的邮件被退回"): a part done, not a failed attempt (corpus rule 1)."""


_RETRY: Final = re.compile(r"重新|重试|再次|又|成功")
"""A completion that redoes the request after an obstacle ("我已经重新给您发送了新的链接", "已经部署成功"):
the request done, not an alternative."""


def alternative_after_refusal(claim_sent: int, refusal_sent: int | None) -> bool:
    """Whether a Chinese completion stands in for a refused request (corpus rule 4): it comes in a
    sentence after one holding an unconditional refusal (``refusal_sent``, ``None`` when there is
    none). A completion before the refusal or in its sentence is a part done (corpus rule 1)."""
    return refusal_sent is not None and claim_sent > refusal_sent


def zh_not_the_request(cued: list[_Clause], clauses: list[_Clause]) -> list[_Clause]:
    """The cued Chinese clauses without completions that are not the request done: failed attempts
    (:func:`failed_attempt`) and alternatives done after a refusal (:func:`alternative_after_refusal`),
    and without a status quo that nothing else in the text makes an outcome (:func:`status_quo`).

    Args:
        cued: The clauses with a cue, in text order (``_Clause`` objects of :mod:`.clauses`).
        clauses: All clauses of the text, in text order (``cued`` is a sub-list).

    Returns:
        ``cued`` without those completions.
    """
    refusal_sent = next((c.sent for c in cued if c.kind in ("refuse", "infeasible") and not c.conditional), None)
    where: dict[int, int] = {}  # the first index of each clause in ``clauses``, filled on first need
    out = []
    for c in cued:
        if c.rule == "refusal.status_quo.zh" and not any(
                _CORROBORATE.search(x.low) for x in clauses if x is not c):
            continue  # "包裹目前仍在运输中，预计明天送达": a state given as an answer
        if c.kind == "claim":
            if _ATTEMPT_ZH.search(c.low):  # the text after it is read only for an attempt (linear on many claims)
                if not where:
                    where.update((id(x), i) for i, x in reversed(list(enumerate(clauses))))
                at = where[id(c)]
                following = " ".join(x.low for x in itertools.takewhile(lambda x: x.sent <= c.sent + 1, clauses[at + 1:])
                                     if x.sent in (c.sent, c.sent + 1))  # clauses are in text order: sent never falls
                if failed_attempt(c.low, following):
                    continue
            if alternative_after_refusal(c.sent, refusal_sent) and not _RETRY.search(c.low):
                continue
        out.append(c)
    return out


_PROPOSAL_ZH: Final = re.compile(
    r"(?:要|需要|要不|要不要|需不需要|是否需要|用不用)(?:我|帮|给|为|替)|^(?:那|那么|或者)?(?:需要|要)(?!求)[^，。？?]{1,30}(?:吗|么)$"
    r"|(?:改用|换成|换到|改成|改约|改订)[^，。？?]{0,20}(?:吗|么)$"
    r"|我(?:可以|能|来)[^？?]{0,60}(?:吗|么)$|^要不[^，。？?]{1,30}$"
    r"|哪(?:个|一个|天|种|家|班|间)[^，。？?]{0,8}(?:合适|可以|方便|行|好)"
)
"""A question proposing what the agent could do instead or letting the user pick among offered
alternatives ("要帮孩子约周日的吗", "要不我给你们开一个线上会议室", "这两个哪个可以")."""
_DETAIL_ZH: Final = re.compile(
    r"号码|编号|单号|身份证|地址|账号|邮箱|是这|是它|是哪|对吗|没错吧|告诉我|发我|提供|有没有|是不是"
)
"""A question asking for a detail of the request itself (an id, an address, which one was meant):
needed for the request (corpus rule 2)."""


def offer_after_refusal(clause_low: str, sentence_low: str) -> bool:
    """Whether a Chinese question after an unconditional refusal offers something else (corpus
    rule 3: the text stays ``abstain``) rather than asking for a detail of the request (rule 2).

    Args:
        clause_low: The question's clause, lower-cased.
        sentence_low: The question's sentence, lower-cased.

    Returns:
        ``True`` for "要帮孩子约周日的吗？", "要不我给你们开一个线上会议室？", "这两个哪个可以？";
        ``False`` for "你有没有其他可以收货的地址？", "是这一家吗？".
    """
    c, s = clause_low.rstrip(" ?？。."), sentence_low.rstrip(" ?？。.")
    return bool(_PROPOSAL_ZH.search(c) or _PROPOSAL_ZH.search(s)) and not _DETAIL_ZH.search(s)


_GO_AHEAD_ZH: Final = re.compile(
    r"(?:^确认(?:一下)?|确认要|确定要|(?:要|是否)(?:继续|执行|现在执行|开始|提交|发出|发送|删除|清空)|(?<!需)要我现在|是否(?:继续|执行|确认)"
    r"|选哪|哪种方式|^还是(?:你|您|先))[^。]*(?:吗|么|\?|？)$"
    r"|(?:回复|输入)[^，。]{0,12}?(?:继续|后我再|我就|我再|即可|确认)|确认后我(?:就|再)|\((?:yes/no|y/n)\)"
)
"""A go-ahead for the request itself: a confirmation, a yes/no to continue, a choice of how to do it."""
_STRONG_CONFIRM: Final = re.compile(r"^确认|确认要|确定要|是否继续|(?:回复|输入)|确认后我|\((?:yes/no|y/n)\)")
"""An explicit confirmation request: a go-ahead even after a completion (the completion was preparation)."""
_FURTHER_ZH: Final = re.compile(r"顺便|下一|另外|其他|也帮|再帮|也要")
"""A further action ("要顺便…吗"): an offer after a completion, not a go-ahead (corpus rule 7)."""
_CONSEQUENCE: Final = re.compile(r"后|之后|以后|一旦|不可逆|撤|回不来|恢复|丢失|失效|不予返还")
"""A consequence of the step once done ("取消后优惠券将不予返还", "这是不可逆的"): a warning, no refusal."""


def go_ahead(clauses: list[_Clause]) -> _Clause | None:
    """The Chinese go-ahead question before an irreversible or consequential step, else ``None``
    (corpus rule 2: a confirmation request before an irreversible step is ``clarify``).

    The text asks for a go-ahead (a confirmation, "要继续吗", "回复 y 继续", a choice of how to do
    the request) in its last asking sentence; any not-possible clause, before or after, sits in a
    sentence stating a consequence of the step ("删除后不可恢复", "这是不可逆的"), so it warns
    rather than refuses; nothing after the question asks or claims. Completions before it are
    preparation.

    Args:
        clauses: All clauses of the text (``_Clause`` objects of :mod:`.clauses`), in text order.

    Returns:
        The first clause of the go-ahead sentence, or ``None``.
    """
    sents: dict[int, str] = {}
    for c in clauses:
        sents[c.sent] = sents.get(c.sent, "") + c.display.lower()
    asking = [i for i, s in sents.items() if _GO_AHEAD_ZH.search(s.rstrip(" 。.!！")) and not _FURTHER_ZH.search(s)
              and not any(c.kind == "transfer" for c in clauses if c.sent == i)]
    if not asking:
        return None
    g = asking[-1]
    if any(c.kind == "claim" and c.sent < g and _ATTEMPT_ZH.search(c.low) for c in clauses) and not _STRONG_CONFIRM.search(sents[g]):
        return None  # "已恢复。要我现在跑迁移脚本吗？": after a completion, a further offer (corpus rule 7)
    for c in clauses:
        if c.kind in ("refuse", "infeasible") and not _CONSEQUENCE.search(sents[c.sent]):
            return None
        if c.sent > g and c.kind in ("ask", "offer", "confirm", "claim", "transfer"):
            return None
    return next(c for c in clauses if c.sent == g)
