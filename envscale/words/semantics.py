"""What a tool means, read from its name, description, parameters and HTTP route.

One reading every stage shares, on the words of this package (`names.tokens`, `inflect.singular`, the
shared verb lists of `verbs`): which verbs create, update, delete or change a
status, which tools are pure computations (calculators, converters, formatters, generators) that
have no place in a database-backed environment, what entity a tool acts on, and what role each
argument plays (a key, a filter, a range bound, a text search, a pagination or output option).

Names are read as people read them: the verb is the first verb word of the method (`walmart.purchase`,
`criminal_record.get_offense_nature`), the words before it a namespace or a provider, and a read verb
after a write-looking namespace word wins (`criminal_record_get_...` reads). A transaction verb without an
object makes the act its entity with the provider as parent (`walmart_purchase` -> a `purchase` at
`walmart`); a follow, vote or like of a thing is a row of its own (`/user/follows/networks/{id}` -> a
`followed_network` keyed by the network), so unfollowing never deletes the network.

A key names the entity an environment has under another name (`resolve_entity`: `parent_folder_id` ->
folders, `receiver_id` -> the people's table). An HTTP route decides what a write does to a row: a POST
to an existing resource's path (`/Services/{Sid}`) or to a singleton (`/settings`) updates it, and an act
on a row (`/orders/{id}/pay`, `/documents/{id}/send`, `/docks/{id}/activation`) moves it to the status
the act leaves it in (`ACT_STATUS`), never adding a row named after the act.

`graph` uses the entities to decide which APIs may share a domain, `materialize` turns meanings
into operations, and `verify` checks a tool's behaviour against the meaning of its *name*, which
it reads here independently of the operation `materialize` chose.

Example:

```python
>>> from envscale.words.semantics import tool_meaning, argument_role
>>> m = tool_meaning("list_order_shipments")
>>> m.effect, m.entity, m.parent
('read', 'shipment', 'order')
>>> tool_meaning("cancel_order").effect, tool_meaning("cancel_order").status_value[0]
('status', 'cancelled')
>>> m = tool_meaning("walmart.purchase")
>>> m.effect, m.entity, m.parent
('create', 'purchase', 'walmart')
>>> tool_meaning("criminal_record_get_offense_nature").effect
'read'
>>> tool_meaning("subtract", "Subtract one number from another.",
...              {"properties": {"a": {"type": "number"}, "b": {"type": "number"}}}).effect
'computation'
>>> argument_role("created_after", {"type": "string", "format": "date-time"})
'range_min'
```
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace
from typing import Any

from .inflect import singular
from .names import glued_words, tokens
from .verbs import READ_VERBS, STATUS_VERBS, WRITE_VERBS

EFFECTS = ("read", "create", "update", "delete", "status", "computation")
"""What a tool does to the state: reads it; adds a row of its entity; changes an existing row; removes
(or retires) one; moves one to another status; or nothing at all (a pure computation)."""

CREATE_VERBS = frozenset(
    "create add insert post register book reserve place submit upload open schedule invite save "
    "write send buy purchase order apply new make enroll enrol subscribe follow "
    "mkdir touch echo like comment reply retweet share attach link import record issue file "
    "raise report request rent hire hold".split()
)
UPDATE_VERBS = frozenset(
    "update set modify change edit put patch rename move mv replace adjust increase decrease "
    "increment decrement fill fund deposit withdraw transfer charge pay assign reassign configure "
    "toggle turn reset restore mark rate tag label star pin unpin mute unmute press release "
    "upgrade downgrade extend reschedule renew top topup load unload reorder sync subtract deduct reduce "
    "append prepend mention".split()
)
DELETE_VERBS = frozenset(
    "delete remove drop rm rmdir unlink destroy erase purge clear revoke unfollow unsubscribe "
    "detach discard trash uninstall unregister unenroll".split()
)
_EMPTIES = frozenset("clear empty flush purge".split())
"""Acts a route names on a row that hold other rows (`/lists/{id}/clear`, `/queues/{id}/purge`): they remove what the
row holds, never the row."""
READ_ONLY_VERBS = frozenset(READ_VERBS) - {
    # read verbs that mostly compute rather than look something up
    "calculate",
    "compute",
    "convert",
    "estimate",
    "predict",
    "translate",
    "format",
    "parse",
    "solve",
    "measure",
    "validate",
}
COMPUTE_VERBS = frozenset(
    "calculate calc compute convert estimate solve evaluate format parse encode decode hash "
    "encrypt decrypt translate transliterate generate simulate predict round sum subtract "
    "multiply divide add mean average median mode factorial integrate differentiate derivative "
    "normalize normalise tokenize tokenise summarize summarise paraphrase rewrite render draw plot "
    "compress decompress validate regex".split()
)
_COMPUTE_NOUNS = frozenset(
    "calculator converter conversion formula equation factorial fibonacci prime gcd lcm logarithm "
    "sqrt root power exponent derivative logarithmic integral matrix vector polynomial quadratic "
    "bmi percentage percent probability permutation combination mean median variance deviation "
    "average sum product_of dot_product cross_product quotient remainder modulo hypotenuse area perimeter volume circumference "
    "velocity acceleration force momentum displacement density pressure_calc interest compound "
    "mortgage_payment loan_payment roi tax_calc tip discount_calc exchange_rate "
    "gallon liter celsius fahrenheit kelvin kilometers miles temperature_conversion "
    "prediction predict forecast_model potential simulation estimation absolute hash checksum base64 uuid password qr qrcode barcode image_generation lorem palindrome anagram "
    "reverse_string uppercase lowercase slugify".split()
)
_NOT_COMPUTED = frozenset({"prime_minister", "prime_ministers", "power_plant", "power_station"})
"""Two-word nouns whose words are compute nouns on their own (`GetPrimeMinisters` looks people up)."""
_COMPUTE_PHRASES = re.compile(
    r"\b(calculat\w*|comput\w*|convert\w*|conversion|formula|equation|sum of|product of|difference "
    r"between two numbers|solve[sd]?|factorial|square root|logarithm|generat\w* (?:a |an )?(?:random|"
    r"image|picture|password|qr|text|poem|story|summary)|format\w* (?:a |the )?(?:date|number|string|text)|"
    r"round\w* (?:a |the )?number)\b",
    re.IGNORECASE,
)
_NOISE = frozenset(
    "by of the a an to for and in on with from all new current info information details detail data based "
    "v1 v2 v3 api my me list get one many specific given single multiple existing as".split()
)
_PREPOSITIONS = ("to", "from", "into", "in", "on", "onto", "for", "by")
_KEY = re.compile(r"^(?P<entity>[A-Za-z][A-Za-z0-9_]*?)(?:_id|Id|ID|_uuid|_gid|Gid|_idfk|IDFK|Idfk)$")
_PAGINATION = frozenset(
    "page page_number page_size per_page offset cursor limit max_results top_k num_results count n size "
    "max page_token next_token continuation_token start_cursor skip take first last before_cursor "
    "after_cursor starting_after ending_before pagesize pagenumber pageindex pagenum pageno "
    # the recipe API's `?pg=&rpp=` (page, results per page) were columns of every table beside the recipes
    "pg rpp results_per_page resultsperpage items_per_page".split()
)
_QUERY_CONTROLS = frozenset(
    "since until before after start end select update_mask read_mask mask ordering view projection params "
    "filter_mask field_mask max_id min_id since_id until_id last_knowledge_of_server "
    # Google's `userIp` (deprecated for `quotaUser`), `showDeleted`, `syncToken`, OData's `$top` and `$inlinecount`:
    # how a call reads (seed 94's readers found them as hetras' and Google Calendar's columns)
    "user_ip show_deleted show_hidden sync_token top inlinecount".split()
)
"""Query-string arguments that bound, page or shape what a call reads or writes (`?since=`, `?before=<cursor>`,
`?$select=`, `?updateMask=`, `?ordering=`, Mastodon's `?max_id=`/`?since_id=` paging bounds, YNAB's delta
`?last_knowledge_of_server=`): a row holds none of them, and the ids that page are no references to a `maxes` table."""
_OPTION = re.compile(
    r"^(sort|sort_by|sort_order|sort_dir|sort_direction|order_dir|order_direction|order|order_by|orderby|direction|dir|format|fmt|verbose|pretty|fields|"
    r"expand|embed|include|includetotalcount|includecount|lang|language_code|locale|include_\w+|with_\w+|opt_\w+|output_\w+|return_\w+|"
    r"response_\w+|callback|api_key|apikey|access_token|token|auth\w*|idempotency_key|idempotency_token|"
    r"client_token|client_request_token|request_token|x_\w+|"
    r"human_readable|precision|decimal_places|units?|xgafv|alt|oauth_token|pretty_print|prettyprint|"
    r"quota_user|quotauser|upload_protocol|upload_type|uploadtype|raw|pass_through|dry_run|async|"
    r"consumer_id|app_id|service_id|api_version|version|etag|if_match|if_none_match|fields_to_\w+|"
    r"update_fields|fields_mask|field_mask)$",
    re.IGNORECASE,
)
_RANGE_MIN = re.compile(
    r"^(min|minimum|from|start|since|after|earliest|lower|low|begin)_|_(min|from|start|since|after|gte|gt)$|"
    r"^(created|updated|modified|published)_(after|since)$",
    re.IGNORECASE,
)
_RANGE_MAX = re.compile(
    r"^(max|maximum|to|end|until|before|latest|upper|high)_|_(max|to|end|until|before|lte|lt)$|"
    r"^(created|updated|modified|published)_before$",
    re.IGNORECASE,
)
_SEARCH = frozenset(
    "query q search keyword keywords term terms text search_term search_query pattern filter phrase".split()
)


@dataclass(frozen=True)
class ToolMeaning:
    """The meaning of one tool.

    Attributes:
        verb (`str` or `None`): The verb of the name (`cancel` in `cancel_order`).
        effect (`str`): One of `EFFECTS`.
        entity (`str` or `None`): The singular entity it acts on, snake_case (`order`, `shipment`).
        parent (`str` or `None`): An entity the main one belongs to (`order` in `list_order_shipments`,
            `repo` in `/repos/{owner}/{repo}/issues`).
        status_value (`tuple`): For `status` effects, the status values it moves to, preferred first.
        evidence (`str`): What decided the effect, for people reading a card or a rejection.
    """

    verb: str | None
    effect: str
    entity: str | None
    parent: str | None = None
    status_value: tuple[str, ...] = ()
    evidence: str = ""


def key_entity(param: str) -> str | None:
    """The entity a key parameter names: `order_id`, `orderId` -> `order`; `id` -> None."""
    match = _KEY.match(param)
    return "_".join(singular(t) for t in tokens(match.group("entity"))) if match else None


_LOOKUP_VERBS = ("find", "fetch", "search", "retrieve", "lookup", "query", "get", "describe")
"""Read verbs that are never nouns: one after a write-looking word makes the name a lookup."""
_GENERIC_VERBS = frozenset({"execute", "run", "perform", "invoke", "call", "handle", "process", "do"})
_TRAILING_READS = frozenset({"list", "check", "show", "view", "count", "read"})
"""Read verbs that can be nouns too (`book_show`, `create_list`): they win only over a namespace word."""
NOUN_VERBS = frozenset(
    "record report file issue order schedule request comment like share link hold rate star tag label pin "
    "charge transfer change load release play book reserve open new return mark note block lock "
    "fill top press turn ship complete".split()
)
"""Words that are verbs and nouns alike: before another verb or after a namespace word they are often the
noun (`criminal_record_get_offense_nature`, `nfl_data.player_record`, `space.star_info`)."""
_DESCRIPTION_OPENS = r"^\W*(?:this (?:function|tool|endpoint|method|api) )?"
"""How a description opens before its verb ("This tool ...")."""
_DESCRIBED_READ = re.compile(
    _DESCRIPTION_OPENS + r"(?:retriev|gets?\b|fetch|finds?\b|search|looks? up|"
    r"lists?\b|shows?\b|checks?\b|quer(?:y|ies)\b|views?\b|displays?\b|obtains?\b|reads?\b)",
    re.IGNORECASE,
)


def method_start(name: str) -> int:
    """The index of the first word of a dotted name's last segment, the method (`walmart.purchase` -> 1,
    `criminal_record.get_offense_nature` -> 2); 0 for a name without a namespace."""
    head, dot, method = name.rpartition(".")
    return len(tokens(head)) if dot and head and tokens(method) else 0


_PREAMBLE = re.compile(r"^This tool belongs to .{0,400}?Tool description:\s*", re.IGNORECASE | re.DOTALL)


_DESCRIBED_WRITE = (
    (
        "create",
        re.compile(
            _DESCRIPTION_OPENS
            + r"(?:submits?|creates?|adds?|posts?|places?|registers?|leaves?|writes?) (?:a|an|new)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "delete",
        re.compile(
            _DESCRIPTION_OPENS + r"(?:deletes?|removes?) (?:a|an|the|all|one)\b",
            re.IGNORECASE,
        ),
    ),
)


def described_write(description: str | None) -> str | None:
    """The write a description opens with: "create" ("Submit a review for ...", "Create a new ..."), "delete"
    ("Deletes a specified script ..."), or `None`."""
    text = _PREAMBLE.sub("", (description or "").strip())[:200]
    return next((effect for effect, pattern in _DESCRIBED_WRITE if pattern.match(text)), None)


def describes_a_read(description: str | None) -> bool:
    """Whether a description opens with a read verb ("Retrieve the record of ...", "Get details ..."),
    after BFCL's "This tool belongs to the ... API. Tool description:" preamble."""
    return bool(_DESCRIBED_READ.match(_PREAMBLE.sub("", (description or "").strip())[:200]))


def _verb_of(words: list[str], start: int = 0, described_read: bool = False) -> tuple[str | None, int]:
    """The verb of a name and its index (camelCase/dotted names split already).

    The verb is the first verb word of the method (the segment after the last dot, from `start`),
    else of the whole name. The words before it are a namespace or a provider (`criminal_record`,
    `walmart`, `oidc_api_OidcApi`), so a write-looking word is not the verb when a read verb follows:
    a lookup verb after it always wins (`nature_reserve_find_nearby`, `open_meteo_api_fetch_weather_data`,
    `criminal_record_get_offense_nature`); a read verb that can be a noun (`list`, `check`, `show`) wins
    over a word of a namespace or over a noun-like verb ending the name (`order_status_check`). A
    noun-like verb after other words (`nfl_data.player_record`, `space.star_info`) is a noun when the
    description opens with a read verb ("Retrieve the record of an NFL player"): the name has no verb.
    """
    verb, at = _first_verb(words[start:])
    if verb is not None:
        at += start
    else:
        verb, at = _first_verb(words)
    if verb is None or verb in READ_VERBS:
        return verb, at
    later = next((i for i, w in enumerate(words[at + 1 :], at + 1) if w in _LOOKUP_VERBS), None)
    ends_reading = verb in NOUN_VERBS and words[-1] in _TRAILING_READS and len(words) - at > 2
    if later is None and (at > start or ends_reading):
        later = next(
            (
                i
                for i, w in enumerate(words[at + 1 :], at + 1)
                if w in _TRAILING_READS and words[i - 1] not in _PREPOSITIONS + ("a", "an", "the", "my")
            ),
            None,
        )
    if later is not None:
        return words[later], later
    if verb in _GENERIC_VERBS:  # `ProductSearch.execute`: runs the search its namespace names
        earlier = next((i for i in range(at - 1, -1, -1) if words[i] in _LOOKUP_VERBS), None)
        if earlier is not None:
            return words[earlier], earlier
    if described_read and at > 0 and verb in NOUN_VERBS:
        return None, -1
    return verb, at


def _first_verb(words: list[str]) -> tuple[str | None, int]:
    for i, word in enumerate(words):
        if word in STATUS_VERBS or word in DELETE_VERBS or word in CREATE_VERBS or word in UPDATE_VERBS:
            return word, i
        if word in READ_VERBS or word in WRITE_VERBS or word in COMPUTE_VERBS:
            return word, i
    return None, -1


SINGLETON_RESOURCES = frozenset({"setting", "preference", "config", "configuration", "profile"})
"""Resources an account has one of (`/settings`, `/feed/config`): a write to one changes it, never adds one."""
ACT_STATUS: dict[str, tuple[str, ...]] = {
    "pay": ("paid",),
    "send": ("sent",),
    "resend": ("sent",),
    "submit": ("submitted",),
    "run": ("running", "started"),
    "execute": ("executed", "running"),
    "trigger": ("triggered", "running"),
    "acknowledge": ("acknowledged",),
    "unsuspend": ("active", "unsuspended"),
    "merge": ("merged",),
    "verify": ("verified",),
    "sign": ("signed",),
    "dispatch": ("dispatched", "shipped"),
    "commit": ("committed",),
    "stage": ("staged",),
    "unstage": ("unstaged",),
    "import": ("imported",),
}
"""Acts on a row that are not status verbs (`STATUS_VERBS`) but leave the row in a state of their own: a
paid order, a sent document, a running monitor. An act changes the row it acts on; it is never a row."""
_ACT_NOUNS = {
    "activation": "activate",
    "deactivation": "deactivate",
    "acknowledgment": "acknowledge",
    "acknowledgement": "acknowledge",
    "cancellation": "cancel",
    "approval": "approve",
    "confirmation": "confirm",
    "completion": "complete",
    "publication": "publish",
    "suspension": "suspend",
    "submission": "submit",
    "verification": "verify",
}
_ACT_SEPARATORS = frozenset({"lifecycle", "actions", "action"})


def act_on_row(segments: list[str], tail: str) -> bool:
    """Whether a route's last segment is an act on the row its parameter before names: `/orders/{id}/pay`,
    `/users/{id}/lifecycle/unsuspend`, `/docks/{id}/activation` (a noun of a status verb); never a
    sub-resource (`/orders/{id}/payments`) nor a collection's own route (`/collections/merge`)."""
    if tail not in ACT_STATUS and tail not in _ACT_NOUNS and tail not in STATUS_VERBS:
        return False
    if not segments or "_".join(tokens(segments[-1])) != tail:
        return False
    before = [seg for seg in segments[:-1] if seg.lower() not in _ACT_SEPARATORS]
    return bool(before) and before[-1].startswith(("{", ":"))


ROW_QUALIFIERS = frozenset(
    {v for values in STATUS_VERBS.values() for v in values}
    | {v for values in ACT_STATUS.values() for v in values}
    | set("all upcoming past future previous recent pending open draft inactive unpublished".split())
) - {"on", "off", "done", "cancel", "void", "close", "live"}
"""Words that say which rows of a resource a read means (`/articles/published`, `getUpcomingWebinars`): a
state or a time of the rows, never a resource of its own."""


def _custom_methods(segments: list[str]) -> list[str]:
    """A route's segments with Google's custom methods apart: `{name}:cancel` -> `{name}`, `cancel`;
    `permissions:batchCreate` -> `permissions`, `create` (a batch of a method is the method)."""
    out: list[str] = []
    for seg in segments:
        head, colon, method = seg.rpartition(":") if not seg.startswith(":") else ("", "", seg)
        words = tokens(method) if colon and head else []
        while words[:1] in (["batch"], ["bulk"]) and len(words) > 1:
            words = words[1:]
        if words and re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", method):
            out += [head, "_".join(words)]
        else:
            out.append(seg)
    return out


_COLLECTION_ACTS = {"bulk": "create", "batch": "create", "import": "import", "create": "create", "add": "add"}


def _collection_act(noun: str) -> str | None:
    """The act a collection's last route segment names (`quick_add` -> `add`, `import`, `bulk` -> `create`), or
    `None` for a resource."""
    words = noun.split("_")
    if len(words) > 2 or (len(words) == 2 and words[0] not in ("quick", "bulk", "batch", "mass")):
        return None
    return _COLLECTION_ACTS.get(words[-1])


_ODATA_ACTION = re.compile(r"^(?:[a-z][a-z0-9]*\.)+([A-Za-z][A-Za-z0-9]*)$")
"""A namespace-qualified OData action ending a route: `microsoft.graph.softDelete`, `microsoft.graph.forward`."""


def _route_entities(
    path: str | None, verb: str | None, posted: bool = False
) -> tuple[str | None, str | None, bool, str | None]:
    """(entity, parent, addresses one row, action) of an OpenAPI route.

    `/repos/{o}/{r}/issues/{n}` -> (`issue`, `repo`, True, None); `/orders/{id}/cancel` ->
    (`order`, None, True, `cancel`); `/warehouses/{w}/inventory/{p}/adjustments` with the verb
    `adjust` -> (`inventory`, `warehouse`, True, `adjust`): a trailing segment that is the tool's
    verb (or its noun form) is an action on the row before it, not a resource.
    """
    if not path:
        return None, None, False, None
    raw = [s for s in path.strip("/").split("/") if s]
    segments = _custom_methods(raw)
    custom = (
        segments[-1] if len(segments) > len(raw) else None
    )  # `{name}:restart`: the route ends in a method
    odata = _ODATA_ACTION.match(raw[-1]) if posted and raw else None
    if odata:
        # `POST /me/messages/{id}/microsoft.graph.softDelete`: an OData action bound to the row before it, never
        # a `deletes` (`forwards`, `sessions`) table of its own; a GET of such a segment is a cast to a type
        custom = "_".join(tokens(odata[1]))
        segments = [*segments[:-1], custom]
    counted = bool(segments) and segments[-1].lower() in ("$count", "count") and len(segments) > 1
    # OData's system segments name no resource: `/groups/{g}/members/$ref` is the group's members,
    # `.../content/$value` the content, `/users/$count` how many users there are
    segments = [s for s in segments if not s.startswith("$")]
    if counted and segments[-1].lower() == "count":
        segments.pop()  # `/employeegroups/count`: how many employee groups, not a `count` resource
    nouns: list[str] = []
    adjacent: set[int] = set()  # indexes of nouns that directly follow another noun segment
    after_param: list[bool] = []  # whether each noun directly follows a parameter segment
    last_is_param = False
    for i, seg in enumerate(segments):
        if seg.startswith("{") or seg.startswith(":"):
            last_is_param = True
            continue
        # Crucible's `/rest-service/reviews-v1/{id}`: a version glued to a segment is no word of its resource
        words = tokens(re.sub(r"[-_.]v\d+(?:\.\d+)*$", "", seg, flags=re.IGNORECASE) or seg)
        # Billbee's `/automaticprovision/createaccount`: an account, never a `createaccounts` table ("create a new
        # create account", seed 93's readers); after a row's key a glued verb is an act on it (`{id}/deleteimage`)
        glued = glued_words(words[0]) if len(words) == 1 else ()
        if len(glued) > 1 and glued[0] in _MAKING_VERBS and not last_is_param:
            words = list(glued[1:])
        elif len(glued) > 2 and (
            cut := next((j for j, w in enumerate(glued) if j and w in _GLUED_FILTERS), 0)
        ):
            # agentOS's `/appointmentsbetweendates`: the appointments, filtered; never an `appointmentsbetweendates`
            # table that no new appointment reaches (seed 94's readers)
            words = list(glued[:cut])
        keyed = i + 1 < len(segments) and segments[i + 1].startswith(("{", ":"))
        if (
            not words
            or seg.startswith("@")
            # VictorOps' `/incidents/byUser/resolve`: a selector of the incidents, never a `user` the act resolves;
            # `/users/by/name/{name}`: the users, by their name
            or (words[0] == "by" and i > 0)
            or (i > 1 and segments[i - 1].lower() == "by" and keyed)
            or re.fullmatch(
                r"v\d+(\.\d+)?\w*|api|rest|rest[-_]?(?:service|api)s?|me|self|current|public|admin",
                seg.lower(),
            )
            # `/Services/{Sid}` names a service, and so do `/resources/{id}/services` (a sub-resource) and OnSched's
            # `/consumer/v1/services` (the route's last segment: "List Services" read consumers, seed 93's readers)
            or (re.fullmatch(r"services?", seg.lower()) and not keyed and i != len(segments) - 1)
        ):
            continue
        if nouns and not last_is_param:
            adjacent.add(len(nouns))
        after_param.append(last_is_param)
        last_is_param = False
        nouns.append("_".join(words))
    action = None
    while len(nouns) > 1 and not last_is_param and nouns[-1] in ROW_QUALIFIERS and not after_param[-1]:
        # `/articles/me/unpublished`: which articles, not an `unpublished` resource (but
        # `/warehouses/{id}/dispatched` is something of one warehouse)
        nouns.pop()
        after_param.pop()
    if nouns and not last_is_param:
        tail = nouns[-1].split("_")[0]
        acting = verb in UPDATE_VERBS or verb in STATUS_VERBS or verb in DELETE_VERBS
        if (
            tail in STATUS_VERBS
            or tail in DELETE_VERBS
            or (acting and len(verb) > 3 and tail.startswith(verb))
        ):
            action = verb if verb and tail.startswith(verb) else tail
            rest = nouns[-1][len(action) :].strip("_") if action and nouns[-1].startswith(action) else ""
            if action in DELETE_VERBS and len(rest) > 2:
                action = f"{action}_{rest}"  # `/resources/{id}/deleteimage`: a part of the row removed, not the row
            nouns.pop()
            last_is_param = True
        elif act_on_row(segments, tail):
            # `/orders/{id}/pay`, `/documents/{id}/send`, `/docks/{id}/activation`: an act on the row before
            action = _ACT_NOUNS.get(tail, tail)
            nouns.pop()
            while nouns and nouns[-1] in _ACT_SEPARATORS:
                nouns.pop()
            last_is_param = True
        elif tail in _LOOKUP_VERBS and nouns[-1] == tail and len(nouns) > 1:
            action = nouns.pop()  # `/members/find`: a lookup over the members, not a `find` resource
        elif tail in _LOOKUP_VERBS and "_by_" in f"_{nouns[-1]}_" and len(nouns) > 1:
            # eBay's `/return_policy/get_by_policy_name`, `/ad_campaign/get_campaign_by_name`: a lookup over the
            # policies (campaigns) by a field of theirs, never a `names` table of its own; `.../get_ads_by_...`
            # finds the ads (of the campaign before)
            named = nouns.pop().split("_by_")[0].split("_")[1:]
            before = singular(nouns[-1].split("_")[-1])
            if named and singular(named[-1]) != before:
                nouns.append("_".join(named))
                after_param.append(False)
            action = tail
        elif len(nouns) > 1 and (not after_param[-1] or nouns[-1] in _BULK) and _collection_act(nouns[-1]):
            # (elmah.io's `/v3/messages/{logId}/_bulk`: the log's messages made in bulk, never a `bulks` table)
            # `/events/quickAdd`, `/transactions/import`, `/transactions/bulk`, `permissions:batchCreate`: rows of
            # the collection made by one call, never an `adds`, `imports` or `bulks` table of their own
            action = _collection_act(nouns.pop())
    if odata and nouns and nouns[-1] == custom:
        action = (
            None  # whatever the OData action is named (`softDelete`, `createForward`), it acts on the row
        )
    if action is None and custom and nouns and nouns[-1] == "_".join(tokens(custom)):
        # whatever Google's custom method is named (`:restart`, `:undelete`, `:setIamPolicy`), it acts
        nouns.pop()
        action = custom
        last_is_param = not nouns or after_param.pop()
    if counted and nouns and not last_is_param:
        action = "count"
    if not nouns:
        # `/v1/{name}:cancel`: an act on the row the name addresses (whose entity the tool's name says)
        return None, None, bool(action) and last_is_param, action
    entity = singular(nouns[-1].split("_")[-1])
    if entity in _CONTAINER_HEADS and "_" in nouns[-1]:
        # Google Calendar's `/users/me/calendarList`: the calendar list's entries, never a `lists` table (a verb's
        # name, which no task may write) that no calendar is found in
        entity = "_".join([*nouns[-1].split("_")[:-1], entity])
    parent = singular(nouns[-2].split("_")[-1]) if len(nouns) > 1 else None
    relation = nouns[-2].split("_")[-1] if len(nouns) > 1 else None
    if relation in _RELATIONS and (len(nouns) - 1) in adjacent and _linkable(nouns[-1].split("_")[-1]):
        # `/user/follows/networks/{network_id}`: a followed network (the follow), not the network itself
        entity, parent = relation_entity(entity, _RELATIONS[relation]), entity
    return entity, parent, last_is_param, action


_ODATA_FUNCTION = re.compile(r"^[A-Za-z_][\w.]*\(.*\)$")


def route_computation(path: Any) -> str | None:
    """Why an HTTP route is a function the API computes rather than a resource it stores, or `None`.

    An OData function call ends the route (`.../events/microsoft.graph.delta()`,
    `.../columns/{c}/microsoft.graph.totalRowRange()`: computed from the resource, with no row of its
    own), or the route calls a named function of a `functions` collection (`/workbook/functions/bitand`:
    Excel's worksheet functions, each computing from its arguments).

    Example:

    ```python
    >>> route_computation("/me/events/microsoft.graph.delta()")
    "an OData function ('microsoft.graph.delta()'): computed from the resource, no stored row"
    >>> route_computation("/drives/{d}/items/{i}/workbook/functions/bitand")
    "a function of the API ('functions/bitand'): computed from its arguments"
    >>> route_computation("/orders/{id}/cancel") is None
    True
    ```
    """
    if not isinstance(path, str):
        return None
    segments = [s for s in path.strip("/").split("/") if s]
    if not segments:
        return None
    if _ODATA_FUNCTION.match(segments[-1]):
        return f"an OData function ({segments[-1]!r}): computed from the resource, no stored row"
    action = (
        segments[-1].removeprefix("microsoft.graph.") if segments[-1].startswith("microsoft.graph.") else ""
    )
    if action and (tokens(action) or [""])[0] in (*_LOOKUP_VERBS, "list", "check", "validate"):
        # `POST /users/microsoft.graph.getAvailableExtensionProperties`: an action that only answers
        return f"an OData action that reads ({segments[-1]!r}): computed, no stored row"
    if len(segments) > 1 and segments[-2].lower() == "functions" and not segments[-1].startswith(("{", ":")):
        return f"a function of the API ('functions/{segments[-1]}'): computed from its arguments"
    return None


def _route_noun(path: Any, word: str) -> bool:
    """Whether a route names `word` as a resource (Avaza's `GET /api/Estimate`: estimates are rows, not a sum)."""
    if not isinstance(path, str):
        return False
    after_noun = False  # `/shipping/estimate`, `/tax/calculate`: an act on what comes before, no resource
    for seg in (s for s in path.strip("/").split("/") if s):
        if seg.startswith(("{", ":")):
            after_noun = False
        elif re.fullmatch(r"v\d+(\.\d+)?\w*|api|rest|public", seg.lower()):
            continue
        elif singular("_".join(tokens(seg))) == word and not after_noun:
            return True
        else:
            after_noun = True
    return False


def computation_reason(
    name: str,
    description: str = "",
    parameters: dict | None = None,
    *,
    routed: bool = False,
    path: str | None = None,
) -> str | None:
    """Why a tool is a pure computation (no state to read or change), or `None`.

    A computation names a compute verb or noun (`subtract`, `calculate_bmi`, `liter_to_gallon`,
    `generate_password`) and takes no argument that addresses a stored entity (`*_id`, a name of a
    record), or its description says it calculates/converts/generates from its inputs alone. Words
    after `by` name what a lookup is keyed by, not what it computes (`FindHomeByArea`,
    `get_by_workspace_slug_members`). A `routed` tool (an HTTP route names a resource) is a
    computation only by its verb: `GET /videos?page=` or `getProduct` read a collection.
    """
    props = (parameters or {}).get("properties") or {}
    words = tokens(name)
    keyed = [p for p in props if key_entity(p) or p.lower() in ("id", "uuid")]
    if keyed:
        return None
    verb, _ = _verb_of(words, method_start(name), describes_a_read(description))
    named = words[: words.index("by", 1)] if "by" in words[1:] else words
    nouns = set(named) | {"_".join(named[i : i + 2]) for i in range(len(named) - 1)}
    for pair in nouns & _NOT_COMPUTED:
        nouns -= set(pair.split("_")) | {pair}
    first_sentence = re.split(r"(?<=[.!?])\s", (description or "").strip(), maxsplit=1)[0][:300]
    if verb in COMPUTE_VERBS and verb not in ("add", "generate") and not _route_noun(path, verb):
        return f"compute verb {verb!r} and no key argument"
    if verb == "add" and props and all(json_type(s) in ("number", "integer") for s in props.values()):
        return "adds numbers"
    if routed:
        return None
    lowered = {p.lower() for p in props}
    if lowered & _URL_ARGS and (lowered & _HTTP_CLIENT_ARGS or set(words) & _HTTP_WORDS):
        return "sends an HTTP request to the URL it is given (no stored entity)"
    if nouns & _CHART_NOUNS:
        return f"draws a {sorted(nouns & _CHART_NOUNS)[0]} from the data it is given"
    if verb in ("add", "subtract") and _date_arithmetic(props):
        return "date arithmetic: adds a number of days (or other units) to a date it is given"
    if nouns & _COMPUTE_NOUNS and (verb is None or verb in READ_VERBS or verb in COMPUTE_VERBS):
        return f"computes {sorted(nouns & _COMPUTE_NOUNS)[0]!r}"
    shown = {"message", "messages", "text", "content", "contents", "lines", "string", "strings"}
    if verb in ("display", "print", "show", "render") and props and set(map(str.lower, props)) <= shown:
        return "displays the text it is given"
    numbers_only = bool(props) and all(
        json_type(s) in ("number", "integer")
        or (json_type(s) == "array" and json_type((s or {}).get("items")) in ("number", "integer"))
        for s in props.values()
    )
    if numbers_only and (verb is None or verb in COMPUTE_VERBS):
        return "takes only numbers and names no stored entity"
    if len(words) >= 3 and "to" in words[1:-1] and verb is None:  # liter_to_gallon, celsius_to_fahrenheit
        return "converts one unit or format to another"
    if (verb is None or verb in READ_VERBS or verb == "generate") and _COMPUTE_PHRASES.search(first_sentence):
        numeric = [p for p, s in props.items() if json_type(s) in ("number", "integer", "array")]
        if numeric or verb in ("generate", "calculate", "compute", "convert"):
            return f"description: {_COMPUTE_PHRASES.search(first_sentence).group(0)!r}"
    return None


_URL_ARGS = frozenset({"url", "uri", "endpoint", "webapi_url", "target_url", "request_url"})
_HTTP_CLIENT_ARGS = frozenset(
    "headers timeout proxies proxy cookies allow_redirects verify cert method params payload payload_json "
    "data body stream auth user_agent".split()
)
_HTTP_WORDS = frozenset({"http", "https", "request", "requests", "webapi", "fetch", "curl"})
"""A function given a URL and the options of an HTTP client (`requests_get(url, timeout, proxies)`,
`sendHttpRequest(url, method, headers)`) performs a request: the call is the client's act, not a stored row
a person later asks about ("the fabric name of the get request with URL ...")."""
_CHART_NOUNS = frozenset({"histogram", "chart", "barchart", "piechart", "plot", "scatterplot", "diagram"})
"""A chart drawn from the numbers the call is given (`create_histogram(data, bins)`) is a picture of its
inputs, never a record the environment keeps."""
_TIME_UNITS = frozenset(
    "day days week weeks month months year years hour hours minute minutes second seconds".split()
)


def _date_arithmetic(props: dict) -> bool:
    """Whether a tool's arguments are only a date and numbers of time units (`add_dates(date, days_to_add)`);
    `add_event(date, duration_hours, title)` names a thing and is not arithmetic."""
    dates = {
        p for p, s in props.items() if "date" in tokens(p) or (s or {}).get("format") in ("date", "date-time")
    }
    counts = {
        p for p, s in props.items() if set(tokens(p)) & _TIME_UNITS and json_type(s) in ("integer", "number")
    }
    others = set(props) - dates - counts - {"format", "timezone", "tz"}
    return bool(dates) and bool(counts) and not others


def json_type(schema: Any) -> str | None:
    """The JSON type of a schema (the first non-null one of a type list), or None."""
    t = schema.get("type") if isinstance(schema, dict) else None
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), None)
    return t if isinstance(t, str) else None


_COMMAND_ENTITY = {
    # shell-style commands (BFCL's file system, MCP file servers): the entity they act on
    "cat": "file",
    "cp": "file",
    "mv": "file",
    "rm": "file",
    "touch": "file",
    "echo": "file",
    "tail": "file",
    "head": "file",
    "wc": "file",
    "grep": "file",
    "sort": "file",
    "diff": "file",
    "find": "file",
    "mkdir": "directory",
    "rmdir": "directory",
    "ls": "directory",
    "cd": "directory",
    "pwd": "directory",
    "du": "directory",
}
_VERB_NOUN = {
    # create verbs whose object is a row of their own (`follow_user` adds a following)
    "follow": "following",
    "unfollow": "following",
    "subscribe": "subscription",
    "unsubscribe": "subscription",
    "like": "like",
    "comment": "comment",
    "reply": "reply",
    "retweet": "retweet",
    "mention": "mention",
    "enroll": "enrollment",
    "enrol": "enrollment",
    "invite": "invitation",
    "book": "booking",
    "reserve": "reservation",
    # transactions: `walmart.purchase`, `safeway.order` make a purchase/order at a provider
    "purchase": "purchase",
    "buy": "purchase",
    "order": "order",
    "rent": "rental",
    "register": "registration",
}
_ACTS = {"booking": "book", "reservation": "reserve", "rental": "rent"}
_HOLDERS = frozenset(
    "watchlist list cart basket playlist favorite favourite queue folder album collection group wishlist "
    "calendar board channel team project inventory library portfolio bag".split()
)
"""Containers whose entries `add X to ...` makes (`add_item_to_cart` fills the cart)."""
"""Nouns of create verbs that, ending a name with no verb (`hotel_booking`, `car_rental`), make it a create."""
_RELATIONS = {
    "reposts": "repost",
    "reposted": "repost",
    "follows": "follow",
    "following": "follow",
    "followed": "follow",
    "votes": "vote",
    "voted": "vote",
    "favorites": "favorite",
    "favourites": "favorite",
    "favorited": "favorite",
    "likes": "like",
    "liked": "like",
    "bookmarks": "bookmark",
    "bookmarked": "bookmark",
    "subscribed": "subscription",
}
"""A word naming a relation of the user to a thing, when another noun follows it (`user_follows_networks`,
`/user/votes/episodes/{id}`, `list_favorites_movies`): the entity is the relation row (`followed_network`),
keyed by the thing it links (see `linked_entity`), so that deleting it unfollows instead of deleting."""


_NOT_LINKED = frozenset(
    "count counts total totals number summary stat stats statistic statistics history info detail details "
    "status settings setting list id ids".split()
)


def _linkable(word: str) -> bool:
    """Whether a word after a relation word names a thing followed, voted or liked (`networks`, `shows`),
    not a figure about the relation (`likes_count`) or an action (`/subscriptions/simulate`)."""
    return not (
        word in _NOT_LINKED
        or word in READ_VERBS
        or word in WRITE_VERBS
        or word in COMPUTE_VERBS
        or word in STATUS_VERBS
    )


_RELATION_PREFIX = {
    "follow": "followed_",
    "like": "liked_",
    "bookmark": "bookmarked_",
    "favorite": "favorite_",
    "subscription": "subscribed_",
}
_RELATION_SUFFIX = {"vote": "_vote", "repost": "_repost"}


def relation_entity(thing: str, relation: str) -> str:
    """The entity of a relation row, named as the APIs name it: a follow of a network is a
    `followed_network`, a vote on an episode an `episode_vote`, a liked song a `liked_song`."""
    if relation in _RELATION_SUFFIX:
        return f"{thing}{_RELATION_SUFFIX[relation]}"
    return f"{_RELATION_PREFIX[relation]}{thing}"


def linked_entity(entity: str | None, parent: str | None = None) -> str | None:
    """The thing a relation row links: `followed_network` -> `network`, `episode_vote` -> `episode`;
    `None` for an entity that is not a relation (`order`, `following`). With `parent`, only when the
    parent is that thing."""
    thing = None
    for prefix in _RELATION_PREFIX.values():
        if entity and entity.startswith(prefix) and len(entity) > len(prefix):
            thing = entity[len(prefix) :]
    for suffix in _RELATION_SUFFIX.values():
        if entity and entity.endswith(suffix) and len(entity) > len(suffix):
            thing = entity[: -len(suffix)]
    if thing is None or (parent is not None and parent != thing):
        return None
    return thing


_NAME_KEYS = re.compile(
    r"^(?P<entity>file|dir|directory|folder|user|repo|repository|branch|project|bucket|channel|team|"
    r"group|workspace|board|list|playlist|device|host|server|queue|topic|table|database|db)_?name$",
    re.IGNORECASE,
)


def path_entities(path: str | None) -> dict[str, str]:
    """The entity each path parameter of a route names: `/lists/{tasklist}/tasks/{task}` ->
    `{"tasklist": "list", "task": "task"}` (the resource segment before it, singular)."""
    out: dict[str, str] = {}
    noun = None
    previous = None  # the parameter just before, when the segment before this one was a parameter
    for seg in (path or "").strip("/").split("/"):
        match = re.fullmatch(r"\{([^}]+)\}", seg)
        if match and noun:
            out[match.group(1)] = noun
            owner = key_entity(previous) if previous else None
            if owner and owner != noun and not key_entity(match.group(1)):
                # elmah.io's `/messages/{logId}/{id}`: the log's messages, keyed by `id`; `logId` keys a log
                out[previous] = owner
            words = tokens(previous) if previous else []
            if (
                len(words) >= 2
                and words[-1] in ("name", "slug", "key", "code", "handle")
                and singular(words[-2]) != noun
                and not (owner and owner == noun)
            ):
                # AppVeyor's `/projects/{accountName}/{projectSlug}`: the project of an account, keyed by its slug;
                # `accountName` names the account (seed 88's readers: "account name 12" held a project's key)
                out[previous] = "_".join(singular(w) for w in words[:-1])
            previous = match.group(1)
        elif seg and not match and not seg.startswith("@"):
            previous = None
            words = tokens(seg)
            if words and not re.fullmatch(r"v\d+(\.\d+)?\w*|api|rest", seg.lower()):
                noun = singular(words[-1])
    return out


_KEY_WORDS = frozenset({"id", "uid", "uuid", "guid", "key", "slug", "code", "number", "name", "handle"})


def route_parent_column(path: str | None, param: str) -> str | None:
    """The column a route parameter naming a parent row is stored under when its own name does not say
    which entity it keys: `/categories/{id}/transactions` -> `category_id`, `/users/{id}/transactions` ->
    `user_id` (so that transactions of a category and of a user are two filters, not one `id`),
    `/organizers/{key}/webinars` -> `organizer_key`.

    Args:
        path: the tool's OpenAPI route.
        param: one of its path parameters.

    Returns:
        `<parent>_<key word>` when `param` is a parent's parameter (not the route's last segment), its
        words name no entity (`id`, `groupid`, `uuid`) and no other parameter of the route names the same
        parent (`/repos/{owner}/{repo}/issues` keeps `owner` and `repo`); else None (the column is the
        parameter's own name).

    Example:

    ```python
    >>> route_parent_column("/categories/{id}/transactions", "id")
    'category_id'
    >>> route_parent_column("/orgunits/{orgid}/usergroups/{groupid}/members", "groupid")
    'usergroup_id'
    >>> route_parent_column("/repos/{owner}/{repo}/issues", "repo") is None
    True
    ```
    """
    parents = path_entities(path)
    segments = str(path or "").strip("/").split("/")
    parent = parents.get(param)
    if parent is None or "{" + param + "}" not in segments[:-1] or list(parents.values()).count(parent) > 1:
        return None
    words = tokens(param)
    if not words or key_entity(param) or name_key_entity(param) or parent.replace("_", "") in "".join(words):
        return None
    last = words[-1]
    word = next((k for k in sorted(_KEY_WORDS, key=len, reverse=True) if last.endswith(k)), None)
    if word is None:
        return None
    if word in ("uid", "uuid", "guid") or last.endswith("id"):
        word = "id"
    return "_".join([*tokens(parent), word])


QUALIFIERS = frozenset(
    "parent source target destination dest src new old primary secondary original current default main "
    "previous next prev base root home from to linked related preferred assigned selected".split()
)
"""Words that say which one of an entity a key names, not what it is: `parent_folder_id` names a folder,
`destination_account_id` an account."""
OTHER_ROW_QUALIFIERS = frozenset(
    "parent source target destination dest src original previous prev next base root from to linked related".split()
)
"""Qualifiers that name another row of the same kind: `parent_folder_id` of a folder is its parent's key, never
the folder's own."""
PERSON_ROLES = frozenset(
    "receiver recipient sender assignee assigner owner author creator reporter member organizer organiser "
    "attendee participant requester requestor approver reviewer editor invitee inviter host follower "
    "followee commenter poster uploader modifier updater".split()
)
"""Roles a person plays towards a row: a `receiver_id`, an `assignee_id` or an `owner_id` names a person."""
PERSON_ENTITIES = ("user", "contact", "member", "person", "people", "customer", "employee")
"""The entities that are people, in the order a role resolves to the first one an environment has."""
_SYNONYMS = {"folder": "directory", "directory": "folder", "dir": "directory"}


def resolve_entity(entity: str, known: Any, *, person: str | None = None) -> str:
    """The entity of an environment a key names when it names it under another name.

    Args:
        entity: what the key says (`key_entity("parent_folder_id")` -> `parent_folder`).
        known: the entities the environment has (tables its tools act on).
        person: the environment's person entity (`user`, `contact` ...) when it has one; a person role
            (`receiver`, `assignee`, `owner`) resolves to it when no entity of the role's own name exists.

    Returns:
        `entity` itself when the environment has it; else, in order, the entity left after the leading
        qualifiers (`parent_folder` -> `folder`, `destination_account` -> `account`), its synonym
        (`folder` -> `directory`), or the person entity for a person role; else `entity` unchanged.

    Example:

    ```python
    >>> resolve_entity("parent_folder", {"folder", "file"})
    'folder'
    >>> resolve_entity("receiver", {"user", "message"}, person="user")
    'user'
    >>> resolve_entity("design", {"project"})
    'design'
    ```
    """
    if entity in known:
        return entity
    words = entity.split("_")
    while len(words) > 1 and words[0] in QUALIFIERS:
        words = words[1:]
    for word in ("_".join(words), _SYNONYMS.get("_".join(words), "")):
        if word in known:
            return word
    if person and person in known and "_".join(words) in PERSON_ROLES:
        return person
    return entity


def person_entity(known: Any) -> str | None:
    """The entity of an environment that holds its people (`user`, `contact`, `member` ...), or None."""
    return next((p for p in PERSON_ENTITIES if p in known), None)


def name_key_entity(param: str) -> str | None:
    """The entity a natural-key parameter names: `file_name` -> `file`, `username` -> `user`."""
    match = _NAME_KEYS.match(param)
    if not match:
        return None
    word = match.group("entity").lower()
    return {"dir": "directory", "folder": "directory", "repository": "repo", "db": "database"}.get(word, word)


@functools.lru_cache(maxsize=65536)
def _keyed_by_another(path: str | None, entity: str | None) -> bool:
    """Whether a route's last key names another entity than the resource before it: `/v3/messages/{logId}` (a log's
    messages), never `/messages/{messageId}` nor `/messages/{id}`."""
    ids = re.findall(r"\{([^}]+)\}", path or "")
    if not ids or not entity or not (path or "").rstrip("/").endswith("}"):
        return False
    named = key_entity(ids[-1])
    head = entity.split("_")[-1]
    return bool(named) and named.split("_")[-1] != head and named not in ("id", "uuid", "key", "name", "sid")


def _singleton_route(path: str | None, entity: str | None) -> bool:
    """Whether a route names a resource an account has one of: `/settings`, `/feed/config`, `/profile`; never a
    collection of them (`/deviceManagement/deviceConfigurations`, `/secureScoreControlProfiles`)."""
    if entity not in SINGLETON_RESOURCES:
        return False
    last = next((s for s in reversed((path or "").strip("/").split("/")) if s and not s.startswith("{")), "")
    words = tokens(last)
    return (
        not words
        or len(words) == 1
        or words[-1] in ("settings", "preferences")
        or singular(words[-1]) == words[-1]
    )


def _meaning(
    name: str,
    props: tuple[str, ...],
    http_method: str | None,
    path: str | None,
    described_read: bool = False,
    described: str | None = None,
) -> ToolMeaning:
    words = tokens(name)
    verb, at = _verb_of(words, method_start(name), described_read)
    route_entity, route_parent, addressed, action = _route_entities(
        path, verb, posted=(http_method or "").upper() == "POST"
    )
    # the object of the verb: the words after it, up to a preposition (`remove_stock_from_watchlist`);
    # `by` starts what a tool is keyed by (`delete_user_follows_networks_by_network_id`), not a container
    after = words[at + 1 :] if at >= 0 else words
    before = words[:at] if at > 0 else []
    if "by" in after:
        after = after[: after.index("by")]
    container = None
    for prep in _PREPOSITIONS:
        if prep in after and prep != "by":
            i = after.index(prep)
            container = [w for w in after[i + 1 :] if w not in _NOISE and not w.isdigit()]
            after = after[:i]
            break
    obj = [w for w in after if w not in _NOISE and w not in _GENERIC_VERBS and not w.isdigit() and len(w) > 1]
    prefix = [w for w in before if w not in _NOISE and not w.isdigit() and len(w) > 1]
    entity = parent = None
    keys = [e for p in props if (e := key_entity(p) or name_key_entity(p))]
    relation = next(
        (j for j in range(len(obj) - 2, -1, -1) if obj[j] in _RELATIONS and _linkable(obj[-1])), None
    )
    if route_entity:
        entity, parent = route_entity, route_parent
    elif verb in _COMMAND_ENTITY and len(words) == 1:
        entity = _COMMAND_ENTITY[verb]
    elif not obj and verb in _VERB_NOUN and (verb in CREATE_VERBS or verb in DELETE_VERBS):
        # `walmart.purchase`, `hotel_book`: the act is the row; the thing keyed, else the provider
        # or namespace before the verb, is its parent ("a Walmart purchase", "a hotel booking")
        entity = _VERB_NOUN[verb]
        provider = prefix[:-1] if prefix and singular(prefix[-1]) == entity else prefix
        parent = keys[0] if keys else ("_".join(provider) or None)
    elif obj and verb in _VERB_NOUN and verb in ("follow", "unfollow", "subscribe", "unsubscribe", "like"):
        entity, parent = _VERB_NOUN[verb], singular(obj[-1])
    elif obj and verb in _ACTS.values() and singular(obj[-1]) not in _ACTS:
        # `reserve_restaurant`, `book_room`, `rent_car`: the act (a reservation, a booking, a rental) is the
        # row, of the thing reserved; never a new restaurant or room
        entity, parent = _VERB_NOUN[verb], singular(obj[-1])
    elif container and obj and verb == "add" and singular(container[-1]) not in _HOLDERS:
        # `add_comment_to_post`, `vt_add_votes_to_ip_address`: a comment (votes) on the post (address),
        # never a new post; `add_stock_to_watchlist` and `add_item_to_cart` fill a list
        entity, parent = singular(obj[-1]), singular(container[-1])
    elif relation is not None:
        # `get_user_follows_networks`, `list_favorites_movies`: the relation row, keyed by the thing
        thing = singular(obj[-1])
        entity, parent = relation_entity(thing, _RELATIONS[obj[relation]]), thing
    elif container and verb in (CREATE_VERBS | DELETE_VERBS) and verb not in ("send", "transfer"):
        entity = singular(container[-1])  # add_to_watchlist, remove_stock_from_watchlist -> watchlist
    elif obj:
        entity = singular(obj[-1])
        parent = singular(obj[-2]) if len(obj) > 1 else None
    elif prefix:
        # `orders.list` style: the noun comes first (`artwork_search.find`: the artwork, not the search)
        nouns = [w for w in prefix if w not in READ_VERBS and w not in WRITE_VERBS] or prefix
        entity = singular(nouns[-1])
    if entity is None:
        entity = keys[0] if keys else None
    if verb is None and not described_read and obj and singular(obj[-1]) in _ACTS and not http_method:
        # `hotel_booking`, `car_rental`: a name that is the noun of a create verb makes one
        verb = _ACTS[singular(obj[-1])]
        return ToolMeaning(verb, "create", entity, parent, (), f"names the act {singular(obj[-1])!r}")
    status_values: tuple[str, ...] = ()
    if verb == "mark" and "as" in words[at + 1 :]:  # `mark_message_as_read`: a status named in the name
        state = words[words.index("as", at + 1) + 1 :]
        named = [w for w in words[at + 1 : words.index("as", at + 1)] if w not in _NOISE]
        keys_named = [e for p in props if (e := key_entity(p))]
        entity = singular(named[-1]) if named else (keys_named[0] if keys_named else None)
        if state:
            return ToolMeaning(
                verb, "status", entity, None, ("_".join(state),), f"marks as {'_'.join(state)!r}"
            )
    method = (http_method or "").upper()
    if action == "count" and method in ("GET", "HEAD"):
        # `GET /sections/$count`, `GET /employeegroups/count`: how many rows, a count of the collection
        return ToolMeaning(
            "count", "read", entity, parent if parent != entity else None, (), f"count route, HTTP {method}"
        )
    act = action or verb
    if method:
        # an HTTP route decides: the method, whether it addresses one row, an action suffix
        if method in ("GET", "HEAD", "OPTIONS"):
            effect, evidence = "read", f"HTTP {method}"
        elif addressed and action in _EMPTIES:
            # Google Tasks' `POST /lists/{tasklist}/clear` clears the list's completed tasks: the list stays (it was
            # deleted, and a task "delete the list" was done with it beside the list's own delete)
            effect, evidence = "update", f"{action!r} empties the row of what it holds, never removes the row"
        elif method == "DELETE" and addressed and action in STATUS_VERBS and action not in DELETE_VERBS:
            # `DELETE /mocks/{uid}/unpublish`: the route names an act on the row, a status change; Flat's
            # `DELETE /assignments/{a}/archive` (`unarchiveAssignment`) undoes the act its route names
            undo = f"un{act}" if f"un{act}" in STATUS_VERBS and (verb == f"un{act}" or not verb) else None
            effect, status_values, evidence = (
                "status",
                STATUS_VERBS[undo or act],
                f"undoes {act!r} over DELETE" if undo else f"status action {act!r} over DELETE",
            )
        elif (
            method == "DELETE"
            and addressed
            and action
            and action.split("_")[0] in DELETE_VERBS
            and "_" in action
        ):
            # `DELETE /resources/{id}/deleteimage`: the resource keeps existing without its image
            effect, evidence = "update", f"{action!r} removes a part of the row, not the row"
        elif method == "DELETE":
            effect, evidence = "delete", "HTTP DELETE"
        elif addressed and act in STATUS_VERBS:
            effect, status_values, evidence = "status", STATUS_VERBS[act], f"status action {act!r} on one row"
        elif addressed and act in ACT_STATUS:
            effect, status_values, evidence = "status", ACT_STATUS[act], f"act {act!r} on one row"
        elif addressed and act in DELETE_VERBS:
            effect, evidence = "delete", f"delete action {act!r} on one row"
        elif method == "PUT" and addressed and linked_entity(entity, parent):
            effect, evidence = "create", "HTTP PUT on one relation row (follows, votes)"
        elif method == "POST" and not addressed and not action and _singleton_route(path, entity):
            effect, evidence = "update", "HTTP POST to a singleton resource"
        elif (
            method == "POST"
            and addressed
            and not action
            and verb not in UPDATE_VERBS
            and _keyed_by_another(path, entity)
        ):
            # elmah.io's `POST /v3/messages/{logId}`: a new message in that log, never an update of a message
            effect, evidence = "create", "HTTP POST to a collection under another row's key"
        elif method == "POST" and addressed and not action and verb in _MAKING_VERBS | {"add"}:
            # elmah.io's `Heartbeats_Create`, `POST /v3/heartbeats/{logId}/{id}` "Create a new heartbeat": a row made
            # under a key its client gives, never an update of one (seed 94's readers)
            effect, evidence = "create", "HTTP POST named a create, to the key it makes"
        elif method == "POST" and addressed and not action and not linked_entity(entity, parent):
            effect, evidence = "update", "HTTP POST to an existing resource's path"
        elif method in ("PUT", "PATCH") or (addressed and action):
            effect, evidence = "update", f"HTTP {method} on one row"
        elif verb in READ_ONLY_VERBS and at == 0:
            effect, evidence = "read", f"read verb {verb!r} over POST"
        elif action in _LOOKUP_VERBS and not addressed:
            effect, evidence = "read", f"lookup route ending in {action!r} over {method}"
        else:
            effect, evidence = "create", f"HTTP {method} to a collection"
    elif verb in STATUS_VERBS:
        effect, status_values, evidence = "status", STATUS_VERBS[verb], f"status verb {verb!r}"
    elif verb in DELETE_VERBS:
        effect, evidence = "delete", f"delete verb {verb!r}"
    elif verb in CREATE_VERBS:
        effect, evidence = "create", f"create verb {verb!r}"
    elif verb in UPDATE_VERBS or verb in WRITE_VERBS:
        effect, evidence = "update", f"update verb {verb!r}"
    elif verb is None and described:  # "Submit a review for ...", "Deletes a specified script ..." (`DelScr`)
        effect, evidence = described, f"no verb in the name; its description says {described}"
    else:
        effect, evidence = "read", f"read verb {verb!r}" if verb else "no write verb"
    return ToolMeaning(verb, effect, entity, parent if parent != entity else None, status_values, evidence)


def tool_meaning(
    name: str,
    description: str | None = "",
    parameters: dict | None = None,
    annotations: dict | None = None,
) -> ToolMeaning:
    """The meaning of a tool (see `ToolMeaning`); deterministic and cached.

    Args:
        name (`str`): The tool's original name (`cancel_order`, `orders.cancel`, `lockDoors`).
        description (`str`, *optional*): Its description.
        parameters (`dict`, *optional*): Its JSON Schema parameters.
        annotations (`dict`, *optional*): Source annotations; an OpenAPI `method` and `path` are read.
    """
    description = description or ""
    props = (parameters or {}).get("properties") or {}
    notes = annotations if isinstance(annotations, dict) else {}
    described_read = describes_a_read(description)
    reason = route_computation(notes.get("path"))
    if reason is not None:
        verb, _ = _verb_of(tokens(name), method_start(name), described_read)
        return ToolMeaning(verb, "computation", None, None, (), reason)
    reason = computation_reason(
        name, description, parameters, routed=bool(notes.get("path")), path=notes.get("path")
    )
    if reason is not None and notes.get("method") not in ("POST", "PUT", "PATCH", "DELETE"):
        verb, _ = _verb_of(tokens(name), method_start(name), described_read)
        return ToolMeaning(verb, "computation", None, None, (), reason)
    meaning = _meaning(
        name,
        tuple(props) if isinstance(props, dict) else (),
        notes.get("method"),
        notes.get("path"),
        described_read,
        None if described_read else described_write(description),
    )
    searched = (
        _SEARCHED.match(description) if meaning.entity in ("search", "query", "lookup", "find") else None
    )
    if meaning.effect == "read" and searched:
        # Pendo's `GET /search`, "Search features": the features, never a `searches` table (seed 93's readers)
        return replace(
            meaning, entity=singular(searched.group(1).lower()), evidence="a search its description names"
        )
    if meaning.effect == "create" and _READ_OVER_POST.search(description):
        # Crucible's `postCustomFilterReviews`: "uses a POST for a read-only retrieval operation" (seed 93's
        # readers: "the only writes add empty rows")
        return replace(meaning, effect="read", evidence="its description says a POST that reads")
    if meaning.effect == "create" and meaning.verb in READ_VERBS and _RETURNS.match(description):
        # a POST named `Recipe_GetStepNumber`, "Returns stored step number and number of steps in recipe", added a
        # `numbers` row (seed 93's readers: "GET endpoints become inserts")
        return replace(
            meaning, effect="read", evidence="named a read, and its description says what it returns"
        )
    return meaning


_MAKING_VERBS = frozenset(("create", "new"))
_CONTAINER_HEADS = frozenset(("list",))
_BULK = frozenset(("bulk", "batch"))
"""Head words of a compound segment that name no thing by themselves (`calendarList`): the whole segment does."""
_GLUED_FILTERS = frozenset(("between", "by", "for", "since", "until", "from", "within"))
"""Words that start a filter glued to a segment's noun (`appointmentsbetweendates`, `ordersbycustomer`)."""
"""A verb glued to the noun of a segment that names what it makes (`createaccount`); an update or a delete glued so
acts on the resource before it (`/products/updatestockcode`)."""
_SEARCHED = re.compile(
    r"\s*(?:search|find|query|look up)(?:es|s)?\s+(?:for\s+)?(?:the\s+|all\s+)?([A-Za-z]{3,})\b", re.I
)
_RETURNS = re.compile(r"\s*returns?\b", re.IGNORECASE)
_READ_OVER_POST = re.compile(
    r"\bPOST (?:request )?(?:for|to do) (?:a )?read(?:-only)?\b|\bread-only\s+retrieval\b", re.IGNORECASE
)


def _content_market(words: str, schema: Any) -> bool:
    """Spotify's `market` (and `from_token`): the country whose catalogue a call reads, a setting of the call,
    never a field of a row ("how many players with market United States there are", a blind reader)."""
    if words not in ("market", "markets", "country_market"):
        return False
    text = str((schema or {}).get("description") or "").lower() if isinstance(schema, dict) else ""
    return "country code" in text or "available in" in text or "from_token" in text


def _json_patch(schema: Any) -> bool:
    """Whether an argument is a JSON Patch document (RFC 6902: a list of `{op, path, value}`): how a call changes
    a row, never a field of it ("change its body to path /srv/app/backups/summary.csv" was a task's request)."""
    if (
        not isinstance(schema, dict)
        or schema.get("type") != "array"
        or not isinstance(schema.get("items"), dict)
    ):
        return False
    props = schema["items"].get("properties")
    return isinstance(props, dict) and {"op", "path"} <= set(props)


_OPERATORS = frozenset(
    "eq ne neq lt lte gt gte like ilike in nin not contains starts_with ends_with between".split()
)


def _operator_filter(schema: Any) -> bool:
    """Whether a query argument is a field's conditions by operator (`?name[like]=palace&starRating[gt]=3`, OpenAPI's
    `style: deepObject`): an object in the query whose example or properties are keyed by operators."""
    if (
        not isinstance(schema, dict)
        or schema.get("x-in") != "query"
        or json_type(schema) not in ("object", None)
    ):
        return False
    if schema.get("x-style") == "deepObject":
        return True
    keys = [k for ex in schema.get("examples") or () if isinstance(ex, dict) for k in ex]
    if isinstance(schema.get("properties"), dict):
        keys += list(schema["properties"])
    return bool(keys) and all("_".join(tokens(k)) in _OPERATORS for k in keys)


def argument_role(name: str, schema: Any = None, *, entity: str | None = None) -> str:
    """The role of an argument: `key`, `reference`, `range_min`, `range_max`, `search`, `pagination`,
    `option` or `value`.

    `key` names the tool's own entity (`order_id` in `get_order`, or `id`); `reference` another
    entity (`customer_id` in `create_order`); options and pagination (`page`, `limit`, `sort*`,
    `format`, `verbose`, `include_*`) never become columns or filters.
    """
    low = name.lower().lstrip("$.")
    words = "_".join(tokens(name))
    if isinstance(schema, dict) and schema.get("x-in") in ("header", "cookie"):
        return "option"
    if low == "key" and isinstance(schema, dict) and schema.get("x-in") == "query":
        return "option"  # an API key in the query string (Google's `key`); elsewhere `key` names a row
    if low in _PAGINATION or words in _PAGINATION:
        return "pagination"
    if re.fullmatch(
        r"paginat\w*_(limit|page|size|offset|cursor|number)|page_(limit|offset|cursor|index|num)", words
    ):
        return (
            "pagination"  # eDRV's `paginate_limit` and `paginate_page`: how a list pages, never a row's field
        )
    if (
        words in ("items", "items_per_page", "page_items", "results_per_page")
        and isinstance(schema, dict)
        and schema.get("x-in") == "query"
        and json_type(schema) in ("integer", "string", None)
        and not isinstance(schema.get("properties"), dict)
    ):
        return "pagination"  # Orbit's `?items=10|50|100`: how many rows a page holds
    if words in ("start", "start_index", "startindex", "start_at") and json_type(schema) == "integer":
        return "pagination"  # `start: 94`: where a page begins, never what a person asks by
    if _OPTION.match(low) or _OPTION.match(words) or _json_patch(schema) or _content_market(words, schema):
        return "option"
    # `since`, `before`, `$select`, `updateMask` in the query: how a call reads or writes, never a row's field; so is
    # Apideck's `?filter[start_date]=...` (an object): the conditions of a list, never a `filter` column
    controls = words in _QUERY_CONTROLS or (
        words in ("filter", "filters", "where") and json_type(schema) == "object"
    )
    if controls and isinstance(schema, dict) and schema.get("x-in") == "query":
        return "option"
    if _operator_filter(schema):  # Impala's `?name[like]=palace`: conditions on a field, never the field
        return "option"
    ref = key_entity(name)
    if low in ("id", "uuid", "gid") or (ref and entity and ref.split("_")[-1] == entity.split("_")[-1]):
        return "key"
    if ref and ref != "parent":
        return "reference"
    if low in _SEARCH or words in _SEARCH:
        return "search"
    bound = _RANGE_MIN.search(words) and "range_min" or _RANGE_MAX.search(words) and "range_max"
    if bound and not (json_type(schema) == "string" and _names_a_place(words)):
        return bound
    return "value"


_PLACE_WORDS = frozenset(
    "city country currency language lang locale location place airport station address travel destination "
    "origin region state port stop timezone zone account".split()
)


def _names_a_place(words: str) -> bool:
    """Whether a string argument named like a bound names where or what, not the end of a range: `travel_from`,
    `from_city`, `to_currency`, `from_account` (a flight's cost was looked up with `city >= 'Paris'`)."""
    return bool(set(words.split("_")) & _PLACE_WORDS)


def range_column(name: str) -> str:
    """The column a range bound argument limits: `min_price` -> `price`, `created_after` -> `created_at`."""
    words = tokens(name)
    bounds = {
        "min",
        "minimum",
        "max",
        "maximum",
        "from",
        "to",
        "start",
        "end",
        "since",
        "until",
        "after",
        "before",
        "earliest",
        "latest",
        "lower",
        "upper",
        "low",
        "high",
        "begin",
        "gte",
        "gt",
        "lte",
        "lt",
    }
    core = [w for w in words if w not in bounds]
    if not core:
        return "date"
    if words[-1] in ("after", "before", "since", "until") and core[-1] in (
        "created",
        "updated",
        "modified",
        "published",
    ):
        return f"{core[-1]}_at"
    return "_".join(core)


_CREDENTIAL = re.compile(
    r"^(api_?key|api_?token|access_?token|auth_?token|oauth_?token|bearer_?token|bearer|token|app_?key|"
    r"app_?secret|app_?token|client_?secret|secret_?key|session_?token|authorization|auth|x_?api_?key)$",
    re.IGNORECASE,
)
_QUERY_CREDENTIAL = re.compile(
    r"^(key|app_?id|consumer_?id|client_?id|signature|sig|service_?id|quota_?user|access_?key"
    # Vestorly's `vestorly_auth` on every call: a credential under the API's name (a row filter made every list
    # return the one row whose random token matched)
    r"|[a-z0-9]+_(auth|api_?key|access_?token|auth_?token|secret))$",
    re.IGNORECASE,
)


_AGENT_LOOP = re.compile(r"^(request_?heartbeat|heartbeat|inner_?thoughts?)$", re.IGNORECASE)
"""Arguments that steer the agent's own loop (MemGPT's `request_heartbeat`: call me again after this one)."""


def agent_side(name: str, schema: Any = None) -> bool:
    """Whether an argument is an agent-side constant, never a fact a user states: an HTTP header or cookie
    (`x-apideck-app-id`, `X-VTEX-API-AppKey`, `If-Match`), a credential anywhere (`api_key`, `token`,
    `access_token`, `client_secret`), an app or consumer id in the query string (Google's `key`), or a switch
    of the agent's own loop (MemGPT's `request_heartbeat`, which a user was found asking to be "turned off").

    The environment plays the server: it takes them as the transport's business (the client sends them
    with every call), so they are left out of its tools' parameters and never become columns, filters or
    facts of a task. `api_pool` keeps them as the specification says.
    """
    where = schema.get("x-in") if isinstance(schema, dict) else None
    if where in ("header", "cookie"):
        return True
    words = "_".join(tokens(name)) or name.lower()
    if _CREDENTIAL.match(words) or _CREDENTIAL.match(name) or _AGENT_LOOP.match(words):
        return True
    return where == "query" and bool(_QUERY_CREDENTIAL.match(words) or _QUERY_CREDENTIAL.match(name))


_NOT_PARTICIPLES = frozenset(
    "feed seed speed bed need breed shed deed red embed bred weed reed steed creed greed tweed shred "
    "sled bled fled led wed hundred".split()
)
_ACTION_NOUNS = frozenset(
    "create delete update get list remove patch put batch add set simulate send acknowledge annotate "
    "authorize prepare respond unsuspend suspend assert ask exist refresh prioritize optimize retry say "
    "greet clean select connect fetch query search find lookup retrieve check validate verify calculate "
    "compute convert estimate bypass cancel start enable disable activate deactivate apply submit "
    "toggle do go perform execute invoke forgot reset resend sort custom specific bulk skip next previous optin "
    "optout opt join".split()
)
_GLUED_VERBS = ("add", "get", "set", "update", "delete", "remove", "create", "list", "post", "put", "patch")


_NOUNS_TOO = frozenset(("list", "batch", "estimate"))
"""Verbs that name things of their own in APIs: Google Tasks' task lists, fire.com's payment batches, Avaza's sales
estimates (as a table's whole name)."""


def verb_named(entity: str | None) -> str | None:
    """Why an entity (a table's singular) is named after an operation rather than a thing, or `None`:
    a verb (`simulate`, `send`, `create`), a participle (`exported`, `staged`, `adddayofweekblocked`), or
    an operation name run together (`adddayofweekblocked`, `getcarrierlist`). No request a person makes
    reads as "add an adddayofweekblocked" or "post a simulate"."""
    if not entity:
        return None
    words = entity.lower().split("_")
    head, last = words[0], words[-1]
    if len(words) == 1 and head in _ACTION_NOUNS and head not in _NOUNS_TOO:
        return f"{entity!r} is a verb"
    if (
        head in _ACTION_NOUNS
        and len(words) > 1
        and head not in ("set", "list", "batch", "check", "custom", "bulk", "sort")
    ):
        return f"{entity!r} starts with the verb {head!r}"
    if last.endswith("ed") and len(last) > 4 and last not in _NOT_PARTICIPLES:
        return f"{entity!r} is a participle"
    for verb in _GLUED_VERBS:
        if len(words) == 1 and head.startswith(verb) and len(head) >= 14 and len(head) - len(verb) >= 8:
            return f"{entity!r} is the operation name {verb!r} + ... run together"
    return None
