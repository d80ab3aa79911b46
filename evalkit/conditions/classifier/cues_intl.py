"""Cue tables of the ``nl`` text classifier for French, German, Spanish, Portuguese, Japanese
and Korean (DESIGN §5).

Each language has one :class:`IntlCues`: a courtesy-closing regex (sentence level, no label),
an offer regex (a question offering something, e.g. a hand-over to a human), and the clause
cue rules in the order they are tried -- ask, refusal, policy (impersonal infeasibility),
claim (reports having done it), deliver. Patterns run on the lower-cased NFKC text. The
tables are smaller than the English and Chinese ones: a text with no cue here is ``unknown``,
never ``act`` (:mod:`evalkit.conditions.classifier`). Bump
:data:`~evalkit.conditions.classifier.CLASSIFIER_VERSION` whenever a rule here changes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class IntlCues:
    """The cues of one language (see the module docstring)."""

    courtesy: re.Pattern[str]
    offer: re.Pattern[str]
    transfer: re.Pattern[str]
    rules: tuple[tuple[str, str, re.Pattern[str]], ...]  # (kind, rule id, regex), tried in order
    report: re.Pattern[str] | None = None  # checked / tried / searched: a claim matched here is only a report
    reason: re.Pattern[str] | None = None  # a clause of reason ("because ..."): no claim or report cue


_RULE_PREFIX: Final[dict[str, str]] = {
    "ask": "ask", "refuse": "refusal", "infeasible": "infeasible", "claim": "claim", "deliver": "act.deliver",
}


def _cues(lang: str, courtesy: str, offer: str, transfer: str, **kinds: str) -> IntlCues:
    more = _MORE.get(lang, {})
    if "courtesy" in more:
        courtesy = courtesy + "|" + more["courtesy"]

    def joined(kind: str, base: str) -> str:
        return base + ("|" + more[kind] if kind in more else "")

    rules = tuple((k, f"{_RULE_PREFIX[k]}.{lang}", re.compile(joined(k, kinds[k]))) for k in _RULE_PREFIX if k in kinds)
    report = re.compile(more["report"]) if "report" in more else None
    reason = re.compile(more["reason"]) if "reason" in more else None
    return IntlCues(re.compile(courtesy), re.compile(joined("offer", offer)), re.compile(transfer), rules, report,
                    reason)


_MORE: Final[dict[str, dict[str, str]]] = {
    "de": {
        "refuse": r"\b(?:kann|konnte|darf|werde|m[öo]chte)\s+ich\b.{0,60}?\b(?:nicht|keine[nmrs]?)\b"
                  r"|\bich\s+(?:kann|konnte|darf)\b.{0,60}?\bkeine[nmrs]?\b|\bwurde\s+nichts\b|\bnichts\b.{0,30}\bge\w+t\b"
                  r"|\b(?:habe|haben)\s+(?:ich|wir)\b.{0,60}\bnicht\b|\bich\s+habe\b.{0,60}\bnicht\s+\w+\b"
                  r"|\bkeine\s+\w+\s+(?:wurde|wurden)\b|\bkein(?:e|en)?\s+(?:werkzeug|tool|zugriff|m[öo]glichkeit)"
                 r"|\bbleib(?:t|en)\s+(?:\w+\s+){0,3}?(?:bestehen|unver[äa]ndert|gleich|aktiv|g[üu]ltig|offen|f[äa]llig)\b",
        "infeasible": r"fehlgeschlagen|gescheitert|abgebrochen|ausgebucht|nicht\s+vorgesehen|erfolgt\s+(?:daher\s+)?keine"
                      r"|ausgeschlossen|nicht\s+mehr\s+m[öo]glich|bleibt\b.{0,40}\bunver[äa]ndert"
                 r"|(?:schon|bereits)\s+(?:vergeben|belegt|reserviert|voll)|nicht\s+mehr\s+frei"
                 r"|\berst\s+(?:ab|nach|wenn|bei)\b.{0,60}\bvorgesehen|\babgelehnt\b",
        "ask": r"(?:bräuchte|benötige|brauche)\s+ich|ich\s+(?:bräuchte|benötige|brauche)\s+(?:noch\s+)?(?:ihre|die|den|das)"
                 r"|(?:nennen|teilen|geben|schicken|senden|best[äa]tigen)\s+sie\s+(?:mir|uns)",
        "claim": r"\b(?:wurde|wurden|ist|sind)\s+(?:\w+\s+){0,2}?\w*(?:ge\w+(?:t|en)|iert|(?:ver|be|er|ent|zer)\w+t)\b"
                 r"|\b(?:abgeschlossen|erledigt|erfolgreich)\b"
                 r"|^(?!.*\b(?:wenn|sobald|nachdem|bevor|falls|bis|ob)\b).*?\bich\s+(?:\w+\s+){0,4}?\w+(?:t|en)\s+habe\b",
        "deliver": r"^hier\s+(?:ihr|ihre|die|der|das|finden)\b",
        "offer": r"stattdessen|alternativ"
                 r"|w[üu]rde\s+ihnen\s+das\s+passen|passt\s+ihnen\s+das|w[äa]re\s+das\s+(?:in\s+ordnung|ok)",
        "report": r"\b(?:geprüft|überprüft|angesehen|nachgesehen|angeschaut|versucht|gesucht|erhalten|verstanden|gefunden)\b",
        "reason": r"^(?:weil|da|denn)\b",
    },
    "fr": {
        "refuse": r"\bje\s+n'ai\s+(?:\w+\s+)?pas\s+pu\b|\baucune?\s+(?!erreur|frais|probl|incident|anomalie|alerte|co[ûu]t|d[ée]bit|surco[ûu]t)\w+\s+n'a\s+[ée]t[ée](?!\s+(?:n[ée]cessaire|requis|utile|besoin))|\bje\s+n'ai\s+(?:pas|aucun)\b|\brien\s+n'a\s+[ée]t[ée]|\bn'ai\s+trouv[ée]\s+aucun|\bil\s+n'y\s+a\s+"
                  r"(?:donc\s+)?rien\s+[àa]|\bje\s+ne\s+l'ai\s+pas"
                 r"|\brest(?:e|ent)\s+(?:donc\s+)?(?:payable|d[ûu]e?s?|en\s+l'[ée]tat|tel(?:le)?s?\s+quel|valable|actif|active|en\s+vigueur|inchang)"
                 r"|\bnous\s+ne\s+(?:pouvons|pourrons|sommes)|\bne\s+(?:pouvons|peut|peuvent)\s+plus\b|\b(?:est|sont|reste|restent)\s+maintenue?s?\b|\bne\s+donnent?\s+pas\s+droit",
        "infeasible": r"[ée]chou[ée]|[ée]chec|complet\b|n'a\s+pas\s+pu|ne\s+permet\s+pas"
                 r"|d[ée]j[àa]\s+(?:r[ée]serv|pris|occup)|plus\s+de\s+place",
        "claim": r"\b(?:a|ont)\s+(?:bien\s+)?[ée]t[ée]\s+(?:pris|mis|fait|faite|effectu[ée]e?s?)|\bterminée?\b|\bc'est\s+fait"
                 r"|\b(?:est|sont)\s+(?:d[ée]sormais|maintenant|bien)\s+(?:\w+\s+)?\w+[ée]e?s?\b|\bj'ai\s+(?:bien\s+|d[ée]j[àa]\s+|[ée]galement\s+|aussi\s+)?(?!pas\b|jamais\b|rien\b|aucun)\w+(?:is|it|ite|ites|u|ue|ert|erte|int|ris)\b",
        "offer": r"[àa]\s+la\s+place|plut[ôo]t"
                 r"|(?:cela|[çc]a)\s+vous\s+(?:convien|irait)",
        "report": r"\b(?:v[ée]rifi[ée]|regard[ée]|essay[ée]|consult[ée]|examin[ée]|[ée]tudi[ée]|re[çc]u|compris|not[ée]|"
                  r"cherch[ée]|recherch[ée]|trouv[ée]|tent[ée])\b",
        "reason": r"^(?:car|parce\s+qu|puisqu)",
    },
    "es": {
        "refuse": r"\bno\s+(?:he|hemos)\s+\w+|\bno\s+dispongo|\bno\s+tengo\s+(?:ninguna|una|un)\s+herramienta|"
                  r"\bno\s+(?:he\s+)?encontr[ée]|\bno\s+hay\s+(?:ninguna?|nada)|\bse\s+mantiene\b"
                 r"|\bsigue(?:n)?\s+(?:sin\s+cambios|igual|vigente|activ|tal\s+(?:y|como))|\bse\s+mantiene(?:n)?\s+(?:igual|sin|tal)|\bpermanece(?:n)?\s+(?:igual|sin|activ)"
                 r"|\bse\s+queda(?:n)?\s+(?:como|igual|tal)|\bno\s+admite(?:n)?\b",
        "infeasible": r"fall[óo]|no\s+se\s+pudo|sin\s+[ée]xito|complet[oa]\b|solo\s+se\s+\w+\s+una\s+vez|ya\s+se\s+le"
                 r"|ya\s+est[áa]\s+(?:ocupad|reservad)|no\s+quedan|agotad",
        "claim": r"\bse\s+(?:le\s+|la\s+|lo\s+)?(?:ha|han)\s+\w+(?:ado|ido)\b|\bcompletad[oa]\b|\bfinalizad[oa]\b"
                 r"|\b(?:ya\s+)?(?:qued[óo]|quedaron)\s+\w+(?:ad|id)[oa]s?\b"
                 r"|\b(?:cancel|transfer|envi|reserv|actualic|program|elimin|borr|cre|agend|activ|desactiv|modifiqu|cambi|"
                 r"pagu|registr|a[ñn]ad|configur|instal|restablec|reprogram)[ée]\b|\b(?:transfer|a[ñn]ad|devolv|abr|escrib|resolv|"
                 r"mov|repart|inclu|sustitu)[íi]\b(?<!\bmi)"
                 r"|\b(?:ha|han)\s+quedado\s+\w+(?:ado|ido|ada|ida)s?\b|\b(?:est[áa]|est[áa]n)\s+(?:ya\s+)?(?:confirmad|reservad|cancelad|activad|programad|agendad)[oa]s?\b",
        "offer": r"en\s+su\s+lugar|en\s+lugar|le\s+paso\s+con|le\s+transfiero|le\s+pongo\s+en\s+contacto"
                 r"|le\s+(?:vendr[íi]a|ir[íi]a)\s+bien|le\s+parece\s+bien|le\s+sirve|le\s+interesa",
        "report": r"\b(?:revisado|verificado|intentado|comprobado|consultado|mirado|recibido|entendido|buscado|analizado|"
                  r"encontrado)\b",
        "reason": r"^(?:porque|ya\s+que|puesto\s+que|pues)\b",
        "ask": r"\b(?:ind[íi]queme|d[íi]game|env[íi]eme|facil[íi]teme|ind[íi]came|d[íi]me|conf[íi]rmame|p[áa]same)\b",
    },
    "pt": {
        "refuse": r"\bn[ãa]o\s+foi\s+\w+(?:ado|ido|ada|ida)\b|\bn[ãa]o\s+\w+ei\b|\bn[ãa]o\s+tenho\s+(?:uma|um|nenhuma?)|\bn[ãa]o\s+encontrei|"
                  r"\bn[ãa]o\s+[ée]\s+mais\s+poss[íi]vel|\bn[ãa]o\s+foi\s+poss[íi]vel"
                 r"|\bcontinua(?:m)?\s+(?:exatamente\s+)?(?:como\s+est|igua|a\s+mesma|o\s+mesmo|inalterad|em\s+vigor|ativ)|\bpermanece(?:m)?\s+(?:como|igual|inalterad|ativ)"
                 r"|\bsegue(?:m)?\s+(?:ativ|igual|como|inalterad|v[áa]lid)",
        "infeasible": r"falhou|sem\s+sucesso|esgotad[oa]|lotad[oa]"
                 r"|j[áa]\s+est[áa]\s+(?:reservad|ocupad)",
        "claim": r"\b(?:corrigi|resolvi|removi|abri|inseri|escrevi|inclu[íi]|conclu[íi]|exclu[íi]|converti|devolvi|"
                 r"preenchi|substitu[íi]|reconstru[íi]|atribu[íi]|promovi)\b"
                 r"|\bconclu[íi]d[oa]\b|\btudo\s+certo\b|\bj[áa]\s+est[áa]\s+(?:no|na|com|marcad|agendad|inclu)"
                 r"|\b(?:est[áa]|est[ãa]o|ficou|ficaram)\s+(?:agora\s+)?(?:marcad|agendad|confirmad|reservad|cancelad|ativad|bloquead|alterad|atualizad|feit|conclu[íi]d)[oa]s?\b",
        "offer": r"em\s+vez|no\s+lugar|ao\s+inv[ée]s"
                 r"|pode\s+ser\b|serve\s+para\s+(?:voc[êe]|o\s+senhor|a\s+senhora)|fica\s+bom|funciona\s+para",
        "report": r"\b(?:verifiquei|tentei|analisei|consultei|recebi|entendi|olhei|procurei|pesquisei|encontrei|revisei|"
                  r"chequei|foi\s+despachad[oa]|foi\s+cobrad[oa]|foi\s+entregue)\b",
        "reason": r"^(?:porque|pois|j[áa]\s+que|uma\s+vez\s+que)\b",
    },
    "ja": {
        "courtesy": r"お待たせ(?:いた)?しました|承知(?:いた)?しました|かしこまりました",
        "claim": r"(?:引き|切り)?(?:上げ|下げ|替え|変え|取れ|作り|送り|入れ|付け|止め|消し|移し)ました",
        "deliver": r"以下のとおり|以下の通り",
        "report": r"確認いたしました|確認しました|拝見しました|試みました|試しました|調べました|検索しました|お調べしました",
        "infeasible": r"失敗|できませんでした|見つかりませんでした|ございません"
                 r"|埋まって|空きがございません|いっぱい"
                 r"|拒否|却下|承っておりません|受け付けておりません",
        "refuse": r"そのまま(?:と|に|で)?(?:なって|して|残|維持|保持)|(?:行われ|実施され|適用され|返金され|変更され|対応され|受け付けられ|承れ)ません|行っておりません|設けられておりません|おりません",
    },
    "ko": {
        "refuse": r"(?:하지|되지|드리지)\s?않았습니다|(?:하지|되지)\s?않았"
                 r"|그대로\s?(?:두었|두겠|유지|청구|남아|있습니다|진행|적용)",
        "claim": r"(?:두었|놓았|마쳤)습니다|완료"
                 r"|(?:보냈|옮겼|바꿨|바꾸었|만들었|열었|닫았|껐|켰|잡았|넣었|올렸|내렸|붙였|걸었|끝냈)(?:습니다|어요|고\b)"
                 r"|(?:했|하였)(?:고|으며)\b",
        "deliver": r"정보입니다|다음과\s?같습니다",
        "offer": r"다른"
                 r"|괜찮으실까요|괜찮으세요|괜찮으신가요|어떠세요|어떠신가요",
        "report": r"확인했습니다|확인하였습니다|검토했습니다|시도했습니다|찾아보았습니다|조회했습니다",
        "infeasible": r"실패|찾을\s?수\s?없|없습니다"
                 r"|이미\s?(?:예약|마감)|꽉\s?찼|마감되었|자리가\s?없"
                 r"|거절되었|거부되었|진행되지\s?않",
    },
}


_TABLES: Final[dict[str, IntlCues]] = {
    "fr": _cues(
        "fr",
        courtesy=r"autre\s+chose|n'h[ée]sitez\s+pas|si\s+vous\s+avez\s+(?:d'autres|des|la\s+moindre)\s+(?:questions?|besoin)"
        r"|bonne\s+(?:journ[ée]e|soir[ée]e|continuation|fin\s+de\s+journ[ée]e)|bon\s+voyage|merci\s+(?:de|pour)\s+votre"
        r"|je\s+reste\s+(?:[àa]\s+votre|disponible)|cordialement",
        offer=r"(?:souhaitez|voulez|aimeriez|d[ée]sirez)[- ]vous\s+que\s+j(?:e\b|')|je\s+peux\s+(?:[ée]galement|aussi)",
        transfer=r"(?:transf[ée]r|mett\w*\s+en\s+relation|redirig)\w*.{0,30}(?:agent|conseiller|humain|coll[èe]gue|service)",
        ask=r"pourriez[- ]vous|pouvez[- ]vous|(?:merci|veuillez)\s+(?:de\s+)?(?:me\s+)?(?:fournir|indiquer|confirmer|"
        r"pr[ée]ciser|communiquer|donner|choisir|envoyer)|confirmez[- ]vous|j'ai\s+besoin\s+(?:de\s+votre|du|de\s+la|des)",
        refuse=r"\bje\s+(?:ne\s+)?(?:peux|pourrai|suis)\s+pas|\bje\s+ne\s+(?:peux|pourrai|suis|vais|dispose)|"
        r"\bje\s+suis\s+(?:dans\s+l'impossibilit[ée]|incapable)|\bimpossible\s+de\b|\bil\s+m'est\s+impossible|"
        r"\bje\s+(?:refuse|dois\s+refuser|d[ée]cline)|\bje\s+n'ai\s+pas\s+(?:la\s+possibilit[ée]|le\s+droit|l'autorisation|"
        r"acc[èe]s|pu)|\baucune\s+(?:modification|action|annulation)\s+n'a\s+[ée]t[ée]|\binchang[ée]",
        infeasible=r"\bnon\s+(?:remboursable|modifiable|annulable|[ée]changeable)|\bn'est\s+pas\s+(?:remboursable|"
        r"modifiable|annulable|autoris[ée]|possible|[ée]ligible|disponible|permis)|\bne\s+(?:peut|peuvent)\s+(?:pas\s+)?"
        r"(?:[êe]tre|plus)|\bpas\s+[ée]ligible|\bne\s+(?:remplit|permet|couvre)\s+pas|\bn'a\s+pas\s+[ée]t[ée]",
        claim=r"\bj'ai\s+(?:bien\s+|d[ée]j[àa]\s+|[ée]galement\s+|aussi\s+)?\w+[ée]e?s?\b|\b(?:a|ont)\s+(?:bien\s+)?[ée]t[ée]\s+"
        r"\w+[ée]e?s?\b|\bc'est\s+fait|\bnous\s+avons\s+\w+[ée]",
        deliver=r"^voici\b|^voil[àa]\b",
    ),
    "de": _cues(
        "de",
        courtesy=r"sonst\s+noch|weitere[nr]?\s+fragen|noch\s+etwas|z[öo]gern\s+sie\s+nicht|sch[öo]nen\s+tag|gute\s+reise"
        r"|vielen\s+dank\s+f[üu]r\s+ihre|mit\s+freundlichen",
        offer=r"m[öo]chten\s+sie,?\s+dass\s+ich|soll\s+ich|kann\s+ich\s+(?:ihnen\s+)?(?:auch|stattdessen)",
        transfer=r"(?:weiterleit|verbind|[üu]bergeb|weitergeb)\w*.{0,40}(?:mitarbeiter|kollege|kollegin|agent|menschen|"
        r"kundendienst|team)|(?:mitarbeiter|kollegen|agent|menschen|kundendienst).{0,30}(?:weiterleit|verbind|[üu]bergeb)",
        ask=r"k[öo]nnten\s+sie|k[öo]nnen\s+sie\s+mir|bitte\s+(?:teilen|geben|nennen|best[äa]tigen|senden|schicken)|"
        r"teilen\s+sie\s+mir|best[äa]tigen\s+sie|ich\s+ben[öo]tige\s+(?:noch\s+)?(?:ihre|die|den|das)",
        refuse=r"\bich\s+(?:kann|darf|werde|konnte)\b.{0,60}?\bnicht\b|\bich\s+bin\s+(?:leider\s+)?nicht\s+(?:in\s+der\s+lage|"
        r"berechtigt|befugt)|\bes\s+ist\s+(?:mir\s+)?(?:leider\s+)?nicht\s+m[öo]glich|\bnicht\s+m[öo]glich|\bich\s+lehne|"
        r"\bkeine\s+[äa]nderungen?\s+(?:wurden|wurde|vorgenommen)|\bunver[äa]ndert",
        infeasible=r"\bnicht\s+(?:erstattungsf[äa]hig|erstattbar|[äa]nderbar|stornierbar|umbuchbar|zul[äa]ssig|erlaubt|"
        r"berechtigt|verf[üu]gbar)|\bk[öo]nnen\s+nicht\s+\w+\s+werden|\bkann\s+nicht\s+\w+\s+werden|\bnicht\s+\w+\s+werden\s+k[öo]nnen"
        r"|\berf[üu]llt\s+nicht|\bausgeschlossen|\bwurde\s+nicht\b",
        claim=r"\bich\s+habe\b(?!.*\bnicht\b)|\b(?:wurde|wurden|ist|sind)\s+(?:erfolgreich\s+)?(?:\w+\s+)?(?:ge\w+t|\w+iert|"
        r"ge\w+en|erledigt|storniert)\b(?!.*\bnicht\b)|\berledigt\b",
        deliver=r"^hier\s+(?:ist|sind)\b",
    ),
    "es": _cues(
        "es",
        courtesy=r"algo\s+m[áa]s|otra\s+(?:cosa|consulta|pregunta)|no\s+dude\s+en|si\s+tiene\s+(?:alguna|otra|m[áa]s)|"
        r"que\s+tenga\s+un|buen\s+viaje|gracias\s+por\s+su",
        offer=r"(?:desea|quiere|le\s+gustar[íi]a|prefiere)\s+que\s+(?:le|lo|la)?\s*\w*|puedo\s+(?:tambi[ée]n|ofrecerle)",
        transfer=r"(?:transfer|comunic|conect|pas)\w*.{0,30}(?:agente|representante|humano|persona|compa[ñn]ero|equipo)",
        ask=r"podr[íi]a\s+(?:usted\s+)?(?:indicarme|decirme|proporcionarme|confirmar|darme|enviarme|facilitarme|"
        r"compartir|especificar)|puede\s+(?:indicarme|decirme|confirmar|proporcionarme)|por\s+favor,?\s+(?:ind[íi]queme|"
        r"confirme|proporcione|d[íi]game|env[íi]eme)|necesito\s+(?:su|el|la|los|que\s+me)|conf[íi]rmeme",
        refuse=r"\bno\s+(?:puedo|podemos|podr[ée]|podremos|me\s+es\s+posible|es\s+posible|estoy\s+autorizad|he\s+podido|"
        r"pude|voy\s+a)|\bme\s+es\s+imposible|\bno\s+tengo\s+(?:la\s+posibilidad|acceso|permiso|autorizaci[óo]n)|"
        r"\bno\s+se\s+(?:ha|han)\s+realizado|\bsin\s+cambios|\bno\s+se\s+(?:ha|han)\s+(?:hecho|modificado|cancelado)",
        infeasible=r"\bno\s+(?:es|son)\s+(?:reembolsable|modificable|cancelable|elegible|posible|transferible|v[áa]lid)|"
        r"\bno\s+(?:se\s+)?(?:puede|pueden)\s+(?:ser\s+)?\w+|\bno\s+reembolsable|\bno\s+cumple|\bno\s+permite|\bno\s+est[áa]\s+"
        r"(?:permitido|disponible|cubierto)",
        claim=r"\b(?:he|hemos|ya\s+he)\s+(?:\w+\s+)?\w+(?:ado|ido|to|cho)\b|\b(?:ha|han)\s+sido\s+\w+(?:ado|ido|ados|idos|"
        r"adas|idas|ada|ida)\b|\bya\s+est[áa]\s+(?:listo|hecho)|\blisto\b",
        deliver=r"^aqu[íi]\s+(?:tiene|est[áa]n?)\b|^a\s+continuaci[óo]n",
    ),
    "pt": _cues(
        "pt",
        courtesy=r"mais\s+alguma\s+coisa|algo\s+mais|outra\s+(?:d[úu]vida|quest[ãa]o)|n[ãa]o\s+hesite|se\s+tiver\s+"
        r"(?:mais|outras|alguma)|tenha\s+um|boa\s+viagem|obrigad[oa]\s+pela|agrade[çc]o",
        offer=r"(?:gostaria|deseja|quer|prefere)\s+que\s+eu|posso\s+(?:tamb[ée]m|oferecer)",
        transfer=r"(?:transfer|encaminh|conect|pass)\w*.{0,30}(?:atendente|agente|humano|representante|pessoa|colega|equipe)",
        ask=r"poderia\s+(?:me\s+)?(?:informar|dizer|confirmar|fornecer|enviar|passar|especificar)|pode\s+(?:me\s+)?"
        r"(?:informar|dizer|confirmar|fornecer)|por\s+favor,?\s+(?:informe|confirme|forne[çc]a|envie|diga)|"
        r"preciso\s+(?:do\s+seu|da\s+sua|que\s+(?:voc[êe]|o\s+senhor)|de\s+(?:mais|algumas))|confirma\s+que",
        refuse=r"\bn[ãa]o\s+(?:posso|podemos|poderei|consigo|consegui|[ée]\s+poss[íi]vel|tenho\s+(?:permiss|autoriza|acesso)|"
        r"estou\s+autorizad|vou)|\b[ée]-me\s+imposs[íi]vel|\bnenhuma\s+(?:altera[çc][ãa]o|a[çc][ãa]o)\s+foi|\bsem\s+altera",
        infeasible=r"\bn[ãa]o\s+(?:[ée]|s[ãa]o)\s+(?:reembols[áa]ve|alter[áa]ve|cancel[áa]ve|eleg[íi]ve|poss[íi]vel|"
        r"permitid|transfer[íi]ve)|\bn[ãa]o\s+(?:pode|podem)\s+ser\b|\bn[ãa]o\s+reembols|\bn[ãa]o\s+(?:atende|cumpre|permite)",
        claim=r"\b(?:eu\s+)?(?:j[áa]\s+)?\w+(?:ei)\b(?<!sei)(?<!direi)|\b(?:foi|foram)\s+(?:\w+\s+)?\w+(?:ado|ido|ada|ida|"
        r"ados|idos|adas|idas)\b|\bj[áa]\s+est[áa]\s+(?:pronto|feito)|\bpronto\b",
        deliver=r"^aqui\s+(?:est[áa]|est[ãa]o)\b|^segue",
    ),
    "ja": _cues(
        "ja",
        courtesy=r"他に(?:何か)?(?:お手伝い|ご質問|ご不明|ご用)|ご不明な点|お気軽に|よろしくお願い|ありがとうございま|"
        r"良い(?:一日|旅|ご旅行)",
        offer=r"しましょうか|いたしましょうか|致しましょうか|ご希望ですか|ご希望でしょうか|いかがでしょうか|いかがですか",
        transfer=r"(?:担当者|オペレーター|スタッフ|係員|専門(?:の)?(?:担当|部署|チーム)|人間)(?:に|へ)(?:お)?(?:つなぎ|繋ぎ|転送|おつなぎ|引き継)",
        ask=r"(?:教えて|お知らせ|ご確認|お聞かせ|ご提供|ご入力|ご指定|お選び)(?:いただけ|ください|頂け|下さい|願え)|"
        r"(?:番号|ID|アドレス|お名前)(?:を|は)(?:お願い|教え)",
        refuse=r"できません|できかねます|いたしかねます|致しかねます|かねます|できない|お受けできません|対応しておりません|"
        r"行えません|出来ません|お断り|不可能|変更(?:は)?(?:されて|して)いません|変更されていません",
        infeasible=r"不可(?!能)|対象外|(?:返金|変更|キャンセル|払い戻し)(?:は)?(?:不可|されません|されない)|満席|在庫切れ",
        claim=r"(?:いた)?しました|完了しました|済みです|されました|手配しました|致しました|しておきました",
        deliver=r"^(?:こちらが|以下が|以下の通り)",
    ),
    "ko": _cues(
        "ko",
        courtesy=r"(?:더|다른|추가로)\s?(?:도와\s?드릴|도움이\s?필요|궁금|문의)|궁금한\s?(?:점|사항)|언제든(?:지)?|감사합니다|"
        r"좋은\s?(?:하루|여행)",
        offer=r"드릴까요|해\s?드릴까요|하시겠어요|하시겠습니까|원하시나요|원하십니까",
        transfer=r"(?:상담원|담당자|직원|상담사|사람|전문가|고객\s?센터)(?:에게|께|으로|로)?\s?(?:연결|전달|이관|안내)",
        ask=r"알려\s?주(?:시|세)|알려주시|확인해\s?주(?:시|세)|말씀해\s?주|제공해\s?주|입력해\s?주|보내\s?주(?:시|세)|선택해\s?주",
        refuse=r"수\s?없습니다|수\s?없어요|수\s?없으며|수\s?없는|못\s?합니다|못했습니다|못\s?하|불가능|어렵습니다|"
        r"변경(?:되지|하지)\s?않았|거절",
        infeasible=r"불가(?!능)|대상이\s?아닙|환불되지\s?않|변경되지\s?않|매진|품절",
        claim=r"(?:했|하였|되었|됐|드렸)습니다|완료(?:되었|했|하였)|처리(?:되었|했)",
        deliver=r"^(?:다음은|아래는|여기)",
    ),
}


def intl_cues(lang: str) -> IntlCues | None:
    """The cue table of ``lang`` (``fr``, ``de``, ``es``, ``pt``, ``ja``, ``ko``), else ``None``."""
    return _TABLES.get(lang)
