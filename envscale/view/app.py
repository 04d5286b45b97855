"""The viewer's Gradio app: a tab per artifact kind over `envscale.view.data`.

`build_app(refs)` returns a `gr.Blocks`; `serve(app, ...)` launches it with the viewer's theme (system fonts:
nothing is fetched from the network, so it runs offline and in CI). Components the tests drive carry an
`elem_id` (`env-pick`, `call-button`, ...), so a browser test finds them as a person would, by what is on the page.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import gradio as gr

from .data import (
    Catalog,
    Index,
    discover,
    picker_choices,
)
from .environments import (
    Usage,
    call_tool,
    diff_markdown,
    domain_picture,
    environment_summary,
    example_arguments,
    initial_state,
    schema_picture,
    session_row,
    table_rows,
    tools_markdown,
)
from .episodes import (
    TaskLookup,
    chat_messages,
    checks_table,
    episode_calls,
    expected_calls,
    trajectory_head,
    trajectory_text,
)
from .evals import (
    eval_agents,
    eval_plots,
    eval_report,
    eval_results,
    eval_table,
)
from .tasks import (
    gold_calls,
    task_markdown,
    task_text,
)

DIFF_HEADING = "**State diff** (what the call changed in the fresh copy)\n\n"

CSS = """
#artifacts table, .envscale-small { font-size: 0.85em; }
"""


def _theme() -> Any:
    system = [gr.themes.Font("system-ui"), gr.themes.Font("sans-serif")]
    mono = [gr.themes.Font("ui-monospace"), gr.themes.Font("monospace")]
    return gr.themes.Default(font=system, font_mono=mono)


def serve(
    app: Any, *, host: str = "127.0.0.1", port: int | None = None, block: bool = True, **kwargs: Any
) -> Any:
    """Launch `app` on `host:port` with the viewer's theme; `block=False` returns once it serves (tests)."""
    return app.launch(
        server_name=host,
        server_port=port,
        prevent_thread_lock=not block,
        theme=_theme(),
        css=CSS,
        show_error=True,
        quiet=True,
        ssr_mode=False,
        **kwargs,
    )


def build_app(refs: str | Sequence[str], *, title: str | None = None) -> Any:
    """The viewer over `refs` (artifacts or folders of them; see `envscale.view.data.discover`)."""
    catalog = discover(refs)
    shown = ", ".join([refs] if isinstance(refs, str) else list(refs))
    with gr.Blocks(title=title or f"envscale view: {shown}", analytics_enabled=False) as app:
        gr.Markdown(f"# envscale view\n`{shown}`: {len(catalog.artifacts)} artifact(s)")
        gr.Dataframe(
            value=catalog.overview(),
            headers=["name", "kind", "version", "rows", "pinned"],
            label="Artifacts",
            interactive=False,
            elem_id="artifacts",
            wrap=True,
        )
        with gr.Tabs():
            if catalog.of_kind("environments"):
                with gr.Tab("Environments", id="environments"):
                    _environments_tab(catalog)
            if catalog.of_kind("tasks"):
                with gr.Tab("Tasks", id="tasks"):
                    _tasks_tab(catalog)
            if catalog.of_kind("trajectories", "filtered"):
                with gr.Tab("Trajectories", id="trajectories"):
                    _trajectories_tab(catalog)
            if catalog.of_kind("eval"):
                with gr.Tab("Eval", id="eval"):
                    _eval_tab(catalog)
    return app


# ----------------------------------------------------------------------------------------------- helpers


def _list_block(gr: Any, label: str, elem: str):
    with gr.Row():
        page = gr.Number(
            value=1, label="page", precision=0, minimum=1, scale=0, min_width=90, elem_id=f"{elem}-page"
        )
        pages = gr.Markdown("", elem_id=f"{elem}-pages")
    table = gr.Dataframe(label=label, interactive=False, wrap=False, max_height=320, elem_id=f"{elem}-list")
    return page, pages, table


def _page_outputs(gr: Any, index: Index, frame: Any, page: Any, id_column: str, current: str | None):
    """The list's page, its page line, and the picker: every row matching the filters and search (up to
    `PICKER_CHOICES`, which the page line says), the current pick kept when it still matches."""
    rows, headers, page, n_pages = index.page(frame, page)
    page_ids = [str(r[headers.index(id_column)]) for r in rows] if rows else []
    ids, capped = picker_choices(frame, id_column)
    value = current if current and current in set(ids) else (page_ids[0] if page_ids else None)
    line = f"page {page} of {n_pages} · {len(frame):,} row(s)"
    if capped:
        line += f" · the picker offers the first {len(ids):,} of them: narrow them with the search or filters"
    return (
        gr.update(value=rows, headers=headers),
        page,
        line,
        gr.update(choices=ids, value=value),
    )


# ----------------------------------------------------------------------------------------------- environments


def _environments_tab(catalog: Catalog) -> None:
    index_of = catalog.index
    names = sorted(catalog.of_kind("environments"))
    graph = catalog.first("graph")
    usage = Usage(catalog)
    with gr.Row():
        art = gr.Dropdown(names, value=names[0], label="environments artifact", scale=1)
        search = gr.Textbox(label="search by name", scale=2, elem_id="env-search")
    page, pages, listing = _list_block(gr, "Environments", "env")
    pick = gr.Dropdown(label="environment", choices=[], elem_id="env-pick", allow_custom_value=True)
    summary = gr.Markdown(elem_id="env-summary")
    with gr.Row():
        schema = gr.Image(
            label="tables and foreign keys", type="pil", interactive=False, elem_id="env-schema"
        )
        domain = gr.Image(label="domain tool graph", type="pil", interactive=False, elem_id="env-domain")
    with gr.Row():
        table = gr.Dropdown(label="table", choices=[], elem_id="env-table", scale=1)
    rows = gr.Dataframe(
        label="initial rows", interactive=False, wrap=True, max_height=360, elem_id="env-rows"
    )
    gr.Markdown("#### Call a tool live (on a fresh copy of the initial state)")
    with gr.Row():
        tool = gr.Dropdown(label="tool", choices=[], elem_id="call-tool", scale=1)
        arguments = gr.Code(label="arguments (JSON)", language="json", elem_id="call-arguments", scale=2)
    call = gr.Button("Call on a fresh copy", variant="primary", elem_id="call-button")
    with gr.Row():
        observation = gr.Code(label="what the tool returned", language="json", elem_id="call-result")
        change = gr.Markdown(DIFF_HEADING + "(call a tool to see what it changes)", elem_id="call-diff")
    with gr.Accordion("Tools: signatures, descriptions and operations", open=False):
        tools = gr.Markdown(elem_id="env-tools")

    def refresh(name, text, number, current):
        index = index_of(name)
        return _page_outputs(gr, index, index.select(search=text), number, "name", current)

    def open_env(name, env):
        if not env:
            return "", None, None, gr.update(choices=[]), gr.update(value=None), gr.update(choices=[]), "", ""
        index = index_of(name)
        position = index.position("name", env)
        if position is None:
            return f"No environment named `{env}` in {name}.", None, None, *[gr.update()] * 3, "", ""
        row = index.row(position)
        spec = json.loads(row["spec"]) if isinstance(row["spec"], str) else row["spec"]
        tables = list(spec.get("tables", {}))
        tool_names = [t["name"] for t in spec.get("tools", [])]
        try:
            picture = domain_picture(graph, row.get("domain_id"))
        except Exception:  # noqa: BLE001 - a graph of another run does not stop the environment view
            picture = None
        try:
            session = session_row(row)
        except Exception:  # noqa: BLE001 - a state that cannot be built still shows its summary
            session = None
        return (
            environment_summary(row, session=session, usage=usage.line(env)),
            schema_picture(row),
            picture,
            gr.update(choices=tables, value=tables[0] if tables else None),
            gr.update(value=None),
            gr.update(choices=tool_names, value=tool_names[0] if tool_names else None),
            "",
            tools_markdown(row),
        )

    def show_table(name, env, which):
        if not env or not which:
            return gr.update(value=None)
        index = index_of(name)
        row = index.row(index.position("name", env))
        spec = json.loads(row["spec"]) if isinstance(row["spec"], str) else row["spec"]
        values, headers = table_rows(initial_state(row), which, spec)
        return gr.update(value=values, headers=headers)

    def fill_arguments(name, env, which):
        if not env or not which:
            return ""
        index = index_of(name)
        row = index.row(index.position("name", env))
        spec = json.loads(row["spec"]) if isinstance(row["spec"], str) else row["spec"]
        tool_spec = next(t for t in spec["tools"] if t["name"] == which)
        return json.dumps(example_arguments(tool_spec, initial_state(row), spec), indent=2, default=str)

    def run_call(name, env, which, args):
        if not env or not which:
            return "", "Pick an environment and a tool first."
        index = index_of(name)
        try:
            result, changed = call_tool(index.row(index.position("name", env)), which, args or "{}")
        except ValueError as exc:
            return "", f"{DIFF_HEADING}**Not called**: {exc}"
        return json.dumps(result, indent=2, ensure_ascii=False, default=str), DIFF_HEADING + changed

    listing_outputs = [listing, page, pages, pick]
    for event, _trigger in ((art.change, art), (search.submit, search), (page.submit, page)):
        event(refresh, [art, search, page, pick], listing_outputs)
    pick.change(open_env, [art, pick], [summary, schema, domain, table, rows, tool, observation, tools])
    table.change(show_table, [art, pick, table], [rows])
    tool.change(fill_arguments, [art, pick, tool], [arguments])
    call.click(run_call, [art, pick, tool, arguments], [observation, change])
    listing.select(_picker("name"), [listing], [pick])
    _on_load(refresh, [art, search, page, pick], listing_outputs)


def _picker(column: str):
    """A list's select event: the clicked row's `column` becomes the picked item."""

    def pick(data, evt: gr.SelectData):
        try:
            return str(data.iloc[evt.index[0]][column])
        except Exception:  # noqa: BLE001 - a click outside the rows changes nothing
            return gr.update()

    return pick


def _on_load(fn, inputs, outputs) -> None:
    """Run `fn` when the page loads (the enclosing Blocks' load event)."""
    blocks = gr.context.Context.root_block
    blocks.load(fn, inputs, outputs)


# ----------------------------------------------------------------------------------------------- tasks


def _tasks_tab(catalog: Catalog) -> None:
    names = sorted(catalog.of_kind("tasks"))

    def index_for(name: str, which_split: str) -> Index:
        return catalog.index(name, "tasks", which_split)

    first = index_for(names[0], "train")
    with gr.Row():
        art = gr.Dropdown(names, value=names[0], label="tasks artifact")
        environment = gr.Dropdown(
            first.values("environment"), value="", label="environment", elem_id="task-env"
        )
        kind = gr.Dropdown(first.values("kind"), value="", label="kind", elem_id="task-kind")
        split = gr.Dropdown(["train", "test"], value="train", label="split", elem_id="task-split")
    page, pages, listing = _list_block(gr, "Tasks", "task")
    pick = gr.Dropdown(label="task", choices=[], elem_id="task-pick", allow_custom_value=True)
    head = gr.Markdown(elem_id="task-head")
    calls = gr.Dataframe(
        label="gold calls: arguments, where each comes from, and what the call returned",
        interactive=False,
        wrap=True,
        elem_id="task-gold",
    )
    gr.Markdown("#### The gold state: what the right calls change")
    diff = gr.Markdown(elem_id="task-diff")
    with gr.Accordion("As `envscale show tasks` prints it", open=False):
        text = gr.Code(language=None, elem_id="task-text")

    def refilter(name, which_split):
        """The environments and kinds of the chosen artifact and split (a held-out environment has only test
        tasks), the choice reset: a value of another split would list nothing."""
        index = index_for(name, which_split)
        return (
            gr.update(choices=index.values("environment"), value=""),
            gr.update(choices=index.values("kind"), value=""),
        )

    def refresh(name, env, which_kind, which_split, number, current):
        index = index_for(name, which_split)
        frame = index.select({"environment": env, "kind": which_kind})
        return _page_outputs(gr, index, frame, number, "task_id", current)

    def open_task(name, which_split, task_id):
        if not task_id:
            return "", gr.update(value=None), "", ""
        index = index_for(name, which_split)
        position = index.position("task_id", task_id)
        if position is None:
            return f"No task `{task_id}` in {name} ({which_split}).", gr.update(value=None), "", ""
        row = index.row(position)
        values, headers = gold_calls(row)
        gold = row.get("gold_diff")
        gold = json.loads(gold) if isinstance(gold, str) else gold
        return (
            task_markdown(row),
            gr.update(value=values, headers=headers),
            diff_markdown(gold or {}),
            task_text(row),
        )

    inputs = [art, environment, kind, split, page, pick]
    outputs = [listing, page, pages, pick]
    for trigger in (art, split):
        trigger.change(refilter, [art, split], [environment, kind]).then(refresh, inputs, outputs)
    for trigger in (environment, kind):
        trigger.change(refresh, inputs, outputs)
    page.submit(refresh, inputs, outputs)
    pick.change(open_task, [art, split, pick], [head, calls, diff, text])
    listing.select(_picker("task_id"), [listing], [pick])
    _on_load(refresh, inputs, outputs)


# ----------------------------------------------------------------------------------------------- trajectories


def _trajectories_tab(catalog: Catalog) -> None:
    sources = []
    for name, art in sorted(catalog.of_kind("trajectories", "filtered").items()):
        sources.append(name)
        if art.manifest["kind"] == "filtered" and art.manifest["counts"].get("rejected"):
            sources.append(f"{name}:rejected")

    def index_of(source: str) -> Index:
        name, _, config = source.partition(":")
        return catalog.index(name, config or None)

    tasks = TaskLookup(catalog)
    first = index_of(sources[0])
    with gr.Row():
        source = gr.Dropdown(
            sources, value=sources[0], label="episodes (artifact[:rejected])", elem_id="traj-source"
        )
        environment = gr.Dropdown(
            first.values("environment"), value="", label="environment", elem_id="traj-env"
        )
        kind = gr.Dropdown(first.values("kind"), value="", label="kind", elem_id="traj-kind")
        check = gr.Dropdown(
            first.values("failed_checks"), value="", label="failed check", elem_id="traj-check"
        )
        verdict = gr.Dropdown(["", "true", "false"], value="", label="passed", elem_id="traj-verdict")
    page, pages, listing = _list_block(gr, "Episodes", "traj")
    pick = gr.Dropdown(label="episode", choices=[], elem_id="traj-pick", allow_custom_value=True)
    head = gr.Markdown(elem_id="traj-head")
    checks = gr.Dataframe(
        label="checks (what each holds when: the judge's own definitions)",
        interactive=False,
        wrap=True,
        column_widths=["10%", "16%", "74%"],
        max_height=720,
        elem_id="traj-checks",
    )
    chat = gr.Chatbot(label="the conversation", height=560, elem_id="traj-chat")
    gr.Markdown("#### What the task expected")
    expected = gr.Markdown(elem_id="traj-expected")
    with gr.Row():
        gold = gr.Dataframe(
            label="the task's gold calls",
            interactive=False,
            wrap=True,
            column_widths=["8%", "22%", "35%", "35%"],
            elem_id="traj-gold",
            scale=1,
        )
        made = gr.Dataframe(
            label="the episode's calls",
            interactive=False,
            wrap=True,
            column_widths=["8%", "22%", "35%", "35%"],
            elem_id="traj-calls",
            scale=1,
        )
    gold_diff = gr.Markdown(elem_id="traj-gold-diff")
    with gr.Accordion("As `envscale show trajectory` prints it", open=False):
        text = gr.Code(language=None, elem_id="traj-text")

    def refresh(which, env, which_kind, failed, passed, number, current):
        index = index_of(which)
        frame = index.select(
            {"environment": env, "kind": which_kind, "failed_checks": failed, "passed": passed}
        )
        return _page_outputs(gr, index, frame, number, "trajectory_id", current)

    def refilter(which):
        index = index_of(which)
        return (
            gr.update(choices=index.values("environment"), value=""),
            gr.update(choices=index.values("kind"), value=""),
            gr.update(choices=index.values("failed_checks"), value=""),
        )

    def open_episode(which, episode):
        empty = ("", [], gr.update(value=None), "", "", gr.update(value=None), gr.update(value=None), "")
        if not episode:
            return empty
        index = index_of(which)
        position = index.position("trajectory_id", episode)
        if position is None:
            return (f"No episode `{episode}` in {which}.", *empty[1:])
        row = index.row(position)
        values, headers = checks_table(row)
        made_values, made_headers = episode_calls(row)
        task = tasks.get(row.get("task_id")) if tasks else None
        if task is None:
            why = (
                "no tasks artifact in this catalog" if not tasks else f"task `{row.get('task_id')}` not found"
            )
            note, gold_update, diff_text = (
                f"({why}: only the episode's calls are shown)",
                gr.update(value=None),
                "",
            )
        else:
            gold_values, gold_headers = expected_calls(task)
            note = (
                f"Task `{task.get('task_id')}`: its gold calls (left) beside the calls this episode made "
                f"(right); the user's first message: {task.get('first_message') or ''}"
            )
            gold_update = gr.update(value=gold_values, headers=gold_headers)
            changed = task.get("gold_diff")
            changed = json.loads(changed) if isinstance(changed, str) else changed
            diff_text = "**The task's gold state diff** (what the right calls change)\n\n" + diff_markdown(
                changed or {}
            )
        return (
            trajectory_head(row),
            chat_messages(row),
            gr.update(value=values, headers=headers),
            trajectory_text(row),
            note,
            gold_update,
            gr.update(value=made_values, headers=made_headers),
            diff_text,
        )

    inputs = [source, environment, kind, check, verdict, page, pick]
    outputs = [listing, page, pages, pick]
    source.change(refilter, [source], [environment, kind, check])
    for trigger in (source, environment, kind, check, verdict):
        trigger.change(refresh, inputs, outputs)
    page.submit(refresh, inputs, outputs)
    pick.change(open_episode, [source, pick], [head, chat, checks, text, expected, gold, made, gold_diff])
    listing.select(_picker("trajectory_id"), [listing], [pick])
    _on_load(refresh, inputs, outputs)


# ----------------------------------------------------------------------------------------------- eval


def _eval_tab(catalog: Catalog) -> None:
    names = sorted(catalog.of_kind("eval"))
    art = gr.Dropdown(names, value=names[0], label="eval artifact", elem_id="eval-pick")
    table = gr.Dataframe(label="side by side (all items)", interactive=False, elem_id="eval-table")
    plots = gr.Gallery(
        label="plots", columns=2, height=560, object_fit="contain", elem_id="eval-plots", preview=False
    )
    gr.Markdown("#### Episodes: which succeeded, which checks failed")
    agent = gr.Dropdown([""], value="", label="agent", elem_id="eval-agent")
    results = gr.Dataframe(
        label="results (one line per episode)",
        interactive=False,
        wrap=True,
        max_height=420,
        elem_id="eval-results",
    )
    report = gr.Markdown(elem_id="eval-report")

    def open_eval(name):
        artifact = catalog.artifacts[name]
        values, headers = eval_table(artifact)
        lines, columns = eval_results(artifact)
        return (
            gr.update(value=values, headers=headers),
            eval_plots(artifact),
            gr.update(choices=eval_agents(artifact), value=""),
            gr.update(value=lines, headers=columns),
            eval_report(artifact),
        )

    def filter_results(name, which):
        lines, columns = eval_results(catalog.artifacts[name], which or "")
        return gr.update(value=lines, headers=columns)

    outputs = [table, plots, agent, results, report]
    art.change(open_eval, [art], outputs)
    agent.change(filter_results, [art, agent], [results])
    _on_load(open_eval, [art], outputs)
