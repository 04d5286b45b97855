"""Key formats (envscale.env.data.keys): a key that is a name gets readable names wherever keys are made."""

import random
import re

from envscale.env import Environment, generate_state
from envscale.env.data import key_formats
from envscale.materialize.verify import valid_call
from envscale.tasks import finding, journeys
from envscale.tasks.asks import KEY_SHAPE, asked_by
from envscale.tasks.build import TasksConfig
from envscale.tasks.model import GoldCall, TaskDraft
from envscale.tasks.prepared import Env

NAME = re.compile(r"^[a-z][a-z0-9]*(?:[-_]?[a-z0-9]+)*$")


def _tool(name, operation, properties, required=(), kind="write"):
    return {
        "name": name,
        "kind": kind,
        "parameters": {"type": "object", "properties": properties, "required": list(required)},
        "operation": operation,
    }


def _spec():
    """A name-keyed API: groups (keyed by an id column, but addressed as `resource_group_name`), vaults
    keyed by `vault_name`, accounts whose name argument allows only 3-12 lower-case letters and digits,
    and notes keyed by an ordinary id."""
    name_of_group = {"type": "string", "description": "The name of the resource group."}
    account = {"type": "string", "pattern": "^[a-z0-9]+$", "minLength": 3, "maxLength": 12}
    return {
        "name": "vaults",
        "tables": {
            "groups": {
                "primary_key": "group_id",
                "columns": {"group_id": {"type": "string"}, "location": {"type": "string", "nullable": True}},
            },
            "vaults": {
                "primary_key": "vault_name",
                "columns": {
                    "vault_name": {"type": "string"},
                    "resource_group_name": {"type": "string", "references": "groups"},
                    "sku": {"type": "string", "nullable": True},
                },
            },
            "accounts": {
                "primary_key": "account_id",
                "columns": {"account_id": {"type": "string"}, "owner": {"type": "string", "nullable": True}},
            },
            "notes": {
                "primary_key": "note_id",
                "columns": {"note_id": {"type": "string"}, "text": {"type": "string", "nullable": True}},
            },
        },
        "tools": [
            _tool(
                "get_vault",
                {"type": "get", "table": "vaults", "key": {"vault_name": "vaultName"}},
                {"vaultName": {"type": "string"}, "resourceGroupName": name_of_group},
                ["vaultName"],
                kind="read",
            ),
            _tool(
                "get_account",
                {"type": "get", "table": "accounts", "key": {"account_id": "accountName"}},
                {"accountName": account},
                ["accountName"],
                kind="read",
            ),
            _tool(
                "create_vault",
                {
                    "type": "insert",
                    "table": "vaults",
                    "values": {"resource_group_name": "resourceGroupName", "sku": "sku"},
                    "generate": {"vault_name": "id"},
                },
                {"resourceGroupName": name_of_group, "sku": {"type": "string"}},
                ["resourceGroupName"],
            ),
            _tool(
                "create_note",
                {
                    "type": "insert",
                    "table": "notes",
                    "values": {"text": "text"},
                    "generate": {"note_id": "id"},
                },
                {"text": {"type": "string"}},
                ["text"],
            ),
        ],
    }


def test_keys_that_are_names_read_as_names_of_their_entity_and_fit_the_schema():
    formats = key_formats(_spec())
    assert {t: f.kind for t, f in formats.items()} == {
        "groups": "name",  # referenced by `resource_group_name`
        "vaults": "name",  # its key column is a name
        "accounts": "name",  # an argument's pattern of letters and digits: not named, but shaped as one
        "notes": "id",
    }
    state = generate_state(_spec(), seed=3)
    groups = [r["group_id"] for r in state["groups"]]
    vaults = [r["vault_name"] for r in state["vaults"]]
    accounts = [r["account_id"] for r in state["accounts"]]
    assert all(g.startswith("rg-") for g in groups), groups  # `resource_group` said as its initials
    assert all(v.startswith("vault-") for v in vaults), vaults
    for key in groups + vaults + accounts:
        assert NAME.match(key) and not KEY_SHAPE.match(key), key
    assert len(set(vaults)) == len(vaults)
    assert all(re.fullmatch(r"[a-z0-9]{3,12}", a) for a in accounts), accounts  # no hyphen, short enough
    assert {r["resource_group_name"] for r in state["vaults"]} <= set(groups)
    assert [r["note_id"] for r in state["notes"]][:2] == ["not_0001", "not_0002"]
    # the same spec gives the same keys
    assert [r["vault_name"] for r in generate_state(_spec(), seed=3)["vaults"]] == vaults


def test_a_row_inserted_under_a_name_key_gets_a_new_name_that_survives_a_snapshot():
    spec = _spec()
    with Environment(spec) as env:
        before = {r["vault_name"] for r in env.dump()["vaults"]}
        group = env.dump()["groups"][0]["group_id"]
        made = env.step("create_vault", {"resourceGroupName": group})
        assert made["ok"], made
        new = (set(r["vault_name"] for r in env.dump()["vaults"]) - before).pop()
        assert new.startswith("vault-") and new not in before and not KEY_SHAPE.match(new)
        assert key_formats(spec)["vaults"].serial(new) == len(before) + 1
        assert env.step("get_vault", {"vaultName": new})["ok"]
        saved = env.snapshot()
        with Environment(spec, snapshot=saved) as copy_:  # the serial is read back from the names
            copy_.step("create_vault", {"resourceGroupName": group})
            names = [r["vault_name"] for r in copy_.dump()["vaults"]]
            assert len(names) == len(set(names)) == len(before) + 2
        assert env.step("create_note", {"text": "hi"})["ok"]
        assert "not_0011" in {r["note_id"] for r in env.dump()["notes"]}


def test_the_tasks_stage_takes_a_name_key_as_a_name_a_person_says():
    vault = key_formats(_spec())["vaults"].make(4)
    assert not KEY_SHAPE.match(vault) and KEY_SHAPE.match("vau_0004")  # `name_holds_key` reads KEY_SHAPE
    assert asked_by("vault_name", "vault_name", vault)
    assert not asked_by("name", "name", "vau_0004")


def _with_named_tools(spec):
    """`put_vault`: a create that takes the new vault's name from the caller (`PUT .../vaults/{vaultName}`);
    `get_vault_in_group`: a read whose path names the parent group without binding it."""
    spec["tools"] += [
        _tool(
            "put_vault",
            {
                "type": "insert",
                "table": "vaults",
                "values": {"vault_name": "vaultName", "resource_group_name": "resourceGroupName"},
            },
            {"vaultName": {"type": "string"}, "resourceGroupName": {"type": "string"}},
            ["vaultName", "resourceGroupName"],
        ),
        _tool(
            "get_vault_in_group",
            {"type": "get", "table": "vaults", "key": {"vault_name": "vaultName"}},
            {"vaultName": {"type": "string"}, "resourceGroupName": {"type": "string"}},
            ["vaultName", "resourceGroupName"],
            kind="read",
        ),
    ]
    return spec


def test_a_call_names_a_new_resource_as_its_owner_would_and_its_parent_as_the_row_holds_it():
    spec = _with_named_tools(_spec())
    tools = {t["name"]: t for t in spec["tools"]}
    with Environment(spec) as env:
        rows = env.dump()
        for seed in range(5):
            args, _ = valid_call(env, tools["put_vault"], rows, random.Random(seed))
            assert args["vaultName"].startswith("vault-") and not KEY_SHAPE.match(args["vaultName"]), args
            assert args["vaultName"] not in {r["vault_name"] for r in rows["vaults"]}
            assert env.step("put_vault", args)["ok"]
            args, target = valid_call(env, tools["get_vault_in_group"], rows, random.Random(seed))
            assert args["resourceGroupName"] == target["resource_group_name"], (args, target)


def test_a_user_states_a_resource_by_its_name_and_nothing_is_looked_up_for_it():
    e = Env({"spec": _with_named_tools(_spec())}, TasksConfig())
    try:
        vault, note = e.rows["vaults"][2]["vault_name"], e.rows["notes"][0]["note_id"]
        assert not finding.internal_key(e, "vaults", vault)
        assert finding.internal_key(e, "notes", note)  # an ordinary key stays internal
        call = GoldCall("get_vault", {"vaultName": vault}, {"vaultName": "user"})
        draft = TaskDraft("vaults", "read", [call], user_facts={"vault name": vault})
        assert journeys.humanize(e, draft, random.Random(0)) is None
        assert [c.tool for c in draft.calls] == ["get_vault"] and draft.user_facts == {"vault name": vault}
    finally:
        e.env.close()


def test_a_key_of_people_that_is_a_name_is_a_handle_made_of_a_persons_name():
    spec = {
        "name": "chat",
        "tables": {
            "users": {"primary_key": "username", "columns": {"username": {"type": "string"}}},
            "members": {"primary_key": "member_id", "columns": {"member_id": {"type": "string"}}},
        },
        "tools": [
            _tool(
                "get_member",
                {"type": "get", "table": "members", "key": {"member_id": "memberName"}},
                {"memberName": {"type": "string", "pattern": "^[a-z0-9_]{3,12}$"}},
                ["memberName"],
                kind="read",
            )
        ],
    }
    formats = key_formats(spec)
    assert formats["users"].person and formats["members"].person
    state = generate_state(spec, seed=0)
    users = [r["username"] for r in state["users"]]
    members = [r["member_id"] for r in state["members"]]
    assert all(re.fullmatch(r"[a-z]+\.[a-z]+\d{2,}", u) for u in users), users  # `mary.lee01`
    assert all(re.fullmatch(r"[a-z0-9_]{3,12}", m) for m in members), members
    assert [formats["users"].serial(u) for u in users] == list(range(1, len(users) + 1))


def test_a_written_value_is_drawn_in_its_arguments_declared_date_time_format():
    """A meeting's `end_time` column (named like a time of day) took "09:15" from a `date-time` argument: the
    meeting's end lost its date (a blind reading). A value written through an argument declared `date-time`
    or `date` is in that format."""
    spec = {
        "name": "meetings",
        "tables": {
            "meetings": {
                "primary_key": "meeting_id",
                "columns": {"meeting_id": {"type": "integer"}, "end_time": {"type": "string"}},
            }
        },
        "tools": [
            _tool(
                "put_meeting",
                {
                    "type": "update",
                    "table": "meetings",
                    "key": {"meeting_id": "meetingId"},
                    "set": {"end_time": "endtime"},
                },
                {
                    "meetingId": {"type": "integer"},
                    "endtime": {"type": "string", "format": "date-time", "description": "The ending time."},
                },
                required=("meetingId", "endtime"),
            )
        ],
        "data": {"rows": {"meetings": 5}},
    }
    with Environment(spec) as env:
        rows = env.dump()
        for seed in range(5):
            args, _ = valid_call(env, spec["tools"][0], rows, random.Random(seed))
            assert re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", args["endtime"]), args
            assert env.step("put_meeting", args)["ok"]


def test_a_row_keyed_by_an_email_is_keyed_by_its_persons_address():
    """Blind readers: iQualify's users were keyed by `user_email` = `use_0001`. A key that is an email is an
    address, of the person the row names, and a new row's key reads like the others."""
    S = {"type": "string"}
    spec = {
        "name": "school",
        "tools": [],
        "tables": {
            "users": {
                "primary_key": "user_email",
                "columns": {"user_email": S, "first_name": S, "last_name": S},
            },
            "enrolments": {
                "primary_key": "id",
                "columns": {"id": S, "user_email": {**S, "references": "users"}},
            },
        },
    }
    users = generate_state(spec, seed=1)["users"]
    fmt = key_formats(spec)["users"]
    for i, user in enumerate(users, 1):
        assert user["user_email"].endswith("@example.com") and fmt.serial(user["user_email"]) == i, user
        assert user["user_email"].startswith(f"{user['first_name'].lower()}."), user


def test_a_slug_key_is_a_name_its_owner_says():
    """Seed 91: VictorOps' assignments keyed by `policySlug` held `ass_0001`, a key no person knows, and the world had
    no task. A slug is what its owner calls the thing: a name key, never internal."""
    spec = {
        "name": "oncall",
        "tables": {
            "policies": {"primary_key": "policy_slug", "columns": {"policy_slug": {"type": "string"}}}
        },
        "tools": [],
    }
    formats = key_formats(spec)
    assert formats["policies"].kind == "name"
    keys = [r["policy_slug"] for r in generate_state(spec, seed=0, rows={"policies": 5})["policies"]]
    assert all(NAME.match(k) and not KEY_SHAPE.match(k) for k in keys), keys


def test_a_resources_name_said_for_an_argument_bound_to_no_column_is_no_filler():
    """The openapi-sample: Azure's `Namespaces_Get(resourceGroupName='rg-billing-main-11', ...)` was dropped as
    filler ("does not fit its name") once the caller's subscription was theirs. A name key of the world is what its
    owner calls the resource, wherever the user says it."""
    from envscale.tasks.asks import filler_fact

    e = Env({"spec": _spec()}, TasksConfig())
    try:
        vault = e.rows["vaults"][0]
        group = vault["resource_group_name"]
        assert e.key_format["groups"].kind == "name" and group in e.name_keys
        args = {"vaultName": vault["vault_name"], "resourceGroupName": group}
        draft = TaskDraft("vaults", "read", [GoldCall("get_vault", args, dict.fromkeys(args, "user"))])
        assert filler_fact(e, draft) is None
        args["resourceGroupName"] = "would"
        draft = TaskDraft("vaults", "read", [GoldCall("get_vault", args, dict.fromkeys(args, "user"))])
        assert filler_fact(e, draft) is not None
    finally:
        e.env.close()


def test_an_azure_subscription_and_a_uuid_key_are_guids():
    """Azure Resource Manager's every route starts `/subscriptions/{subscriptionId}`: its keys were `sub_0018`,
    which in NetApp's world was also a subnet's key, and no Azure user has seen one. A subscription's key, and a
    key whose argument says `format: uuid`, are GUIDs a user copies, and a row inserted gets a new one."""
    sub = {"type": "string", "x-in": "path", "description": "The ID of the target subscription."}
    spec = {
        "name": "arm",
        "tables": {
            "subscriptions": {
                "primary_key": "subscription_id",
                "columns": {"subscription_id": {"type": "string"}},
            },
            "subnets": {"primary_key": "subnet_id", "columns": {"subnet_id": {"type": "string"}}},
            "tokens": {"primary_key": "token_id", "columns": {"token_id": {"type": "string"}}},
            "vaults": {
                "primary_key": "vault_id",
                "columns": {
                    "vault_id": {"type": "string"},
                    "subscription_id": {"type": "string", "nullable": True, "references": "subscriptions"},
                },
            },
        },
        "data": {"rows": {"subscriptions": 3, "subnets": 3, "tokens": 3, "vaults": 5}},
        "tools": [
            {
                **_tool(
                    "Vaults_List",
                    {
                        "type": "list",
                        "table": "vaults",
                        "filters": [{"column": "subscription_id", "arg": "subscriptionId"}],
                    },
                    {"subscriptionId": sub},
                    ["subscriptionId"],
                    kind="read",
                ),
                "metadata": {
                    "annotations": {
                        "path": "/subscriptions/{subscriptionId}/providers/Microsoft.KeyVault/vaults"
                    }
                },
            },
            _tool(
                "get_token",
                {"type": "get", "table": "tokens", "key": {"token_id": "token"}},
                {"token": {"type": "string", "format": "uuid"}},
                ["token"],
                kind="read",
            ),
        ],
    }
    formats = key_formats(spec)
    assert formats["subscriptions"].kind == "uuid" and formats["tokens"].kind == "uuid"
    assert formats["subnets"].kind == "id"
    state = generate_state(spec, seed=0)
    guid = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
    subs = [r["subscription_id"] for r in state["subscriptions"]]
    assert all(guid.match(s) for s in subs) and len(set(subs)) == 3
    assert {r["subscription_id"] for r in state["vaults"]} <= set(subs)
    assert [formats["subscriptions"].serial(s) for s in subs] == [1, 2, 3]
    assert all(r["subnet_id"].startswith("sub_") for r in state["subnets"])
    insert = {
        "name": "add_token",
        "kind": "write",
        "parameters": {"type": "object", "properties": {}},
        "operation": {"type": "insert", "table": "tokens", "values": {}, "generate": {"token_id": "id"}},
    }
    spec["tools"].append(insert)
    with Environment(spec) as env:
        env.reset()
        made = env.step("add_token", {})["result"]["token_id"]
        assert guid.match(made) and made not in {r["token_id"] for r in state["tokens"]}, made
