"""The ``hubtui`` command: the app, the app on the demo API, and the demo API server.

One idea: the parser of every command and option, and the composition root (the Workspace,
the demo API, serve, demo-server).
"""

from __future__ import annotations

import argparse
import logging
import os
import shlex
import socket
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from hubtui import __version__
from hubtui.config import ConfigError, Settings, load_settings
from hubtui.text import inert, log_safe

if TYPE_CHECKING:
    from types import FrameType

    from hubtui.api import HubClient
    from hubtui.core.workspace import Workspace


class _NoTokenFlag(argparse.Action):
    """``--token VALUE`` would put the token in shell history: refuse, without repeating it."""

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        parser.error("there is no --token flag: use HUBTUI_TOKEN or --token-file")


def add_global_options(parser: argparse.ArgumentParser, *, after_command: bool = False) -> None:
    """The options every command shares. After a command (``hubtui hubs --profile test``) they
    leave what was given before the command alone unless given again."""
    default: dict[str, Any] = {"default": argparse.SUPPRESS} if after_command else {}
    flag: dict[str, Any] = {"default": argparse.SUPPRESS} if after_command else {"default": None}
    parser.add_argument("--token", nargs="?", action=_NoTokenFlag, help=argparse.SUPPRESS)
    parser.add_argument("--demo", action="store_true", help="use the embedded demo API", **default)
    parser.add_argument(
        "--profile",
        help="use this [profiles.NAME] of the config file (or HUBTUI_PROFILE)",
        **default,
    )
    parser.add_argument("--base-url", help="the API server (or HUBTUI_BASE_URL)", **default)
    parser.add_argument("--token-file", help="read the bearer token from this file", **default)
    parser.add_argument(
        "--api-version", choices=("v2", "v3"), help="project-user API version", **default
    )
    parser.add_argument("--read-only", action="store_true", help="turn every change off", **flag)
    parser.add_argument(
        "--allow-insecure-http",
        action="store_true",
        help="allow plain http to a host that is not this machine",
        **flag,
    )
    parser.add_argument("--ca-bundle", help="verify TLS against this CA bundle", **default)
    parser.add_argument(
        "--concurrency",
        type=int,
        help="project-user lists fetched at once by a search across projects (default 8)",
        **default,
    )
    parser.add_argument(
        "--no-store",
        action="store_true",
        help="keep nothing read on disk this run (the store setting: hubs, all or off)",
        **flag,
    )
    parser.add_argument(
        "--store-url",
        help="a team's store on PostgreSQL (libpq address, no password): snapshots, reviews "
        "and every change shared there",
        **default,
    )
    parser.add_argument(
        "--offline",
        action="store_true",
        help="read what the store kept of the server instead of the server (read-only)",
        **flag,
    )
    parser.add_argument(
        "--log-file",
        help="write a debug log of every request and response here (the token is redacted)",
        **default,
    )


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    """The arguments. Starting the app (options only, the usual case) reads them with the
    global options alone: the parsers of twenty commands, and the modules that describe them,
    are built only when a command (or help) is asked for, not before the app's first frame."""
    given = list(sys.argv[1:] if argv is None else argv)
    if not {"-h", "--help", "--version"} & set(given):
        app = argparse.ArgumentParser(prog="hubtui", add_help=False, allow_abbrev=False)
        add_global_options(app)
        app.set_defaults(command=None)
        found, rest = app.parse_known_args(given)
        if not rest:
            return found
    return build_parser().parse_args(given)


def _file_pair(args: argparse.Namespace) -> bool:
    from hubtui.headless import file_pair

    return file_pair(args)


def _headless(command: str) -> bool:
    from hubtui.headless import HEADLESS

    return command in HEADLESS


def build_parser() -> argparse.ArgumentParser:
    from hubtui.headless import EXIT_STATUSES, add_commands

    parser = argparse.ArgumentParser(
        prog="hubtui",
        description="A keyboard-first terminal app for hubs, projects and project users.",
        epilog="The token comes from HUBTUI_TOKEN, --token-file or the config file's "
        f"token_command; never from a flag value. Commands' {EXIT_STATUSES}.",
        allow_abbrev=False,
    )
    parser.add_argument("--version", action="version", version=f"hubtui {__version__}")
    add_global_options(parser)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_commands(commands)
    web = commands.add_parser(
        "serve",
        help="serve the app to a web browser on this machine (needs hubtui[web])",
        description="Serve the app, with the options given before 'serve', to a web browser. "
        "It listens on loopback only: from elsewhere, forward the port over SSH "
        "(ssh -L 8000:127.0.0.1:8000 host).",
        allow_abbrev=False,
    )
    web.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    for sub in commands.choices.values():
        add_global_options(sub, after_command=True)
    server = commands.add_parser(
        "demo-server", help="serve the demo API over HTTP", allow_abbrev=False
    )
    server.add_argument("--host", default="127.0.0.1", help="address to listen on")
    server.add_argument("--port", type=int, default=8765, help="port to listen on")
    server.add_argument("--seed", type=int, default=0, help="seed of the generated data")
    server.add_argument("--hubs", type=int, default=4, help="generated hubs beside the showcase")
    server.add_argument("--projects-per-hub", type=int, default=3)
    server.add_argument("--users-per-project", type=int, default=8)
    server.add_argument(
        "--people-per-hub",
        type=int,
        default=0,
        help="draw each generated project's users from this many people of its hub (0: a new "
        "person for each membership)",
    )
    server.add_argument(
        "--big-project-users", type=int, default=0, help="add a project with this many users"
    )
    server.add_argument("--latency", type=float, default=0.0, help="seconds added to each answer")
    server.add_argument(
        "--failure-rate", type=float, default=0.0, help="share of requests that fail (0 to 1)"
    )
    server.add_argument(
        "--failure-statuses",
        default="503",
        help="comma-separated statuses for injected failures (e.g. 429,500,503)",
    )
    server.add_argument("--retry-after", type=int, default=1, help="Retry-After of 429 and 503")
    server.add_argument("--malformed-rate", type=float, default=0.0)
    server.add_argument("--truncated-rate", type=float, default=0.0)
    server.add_argument(
        "--change-failure-status", type=int, help="answer every create and update with this status"
    )
    server.add_argument(
        "--change-latency", type=float, default=0.0, help="seconds before a change is answered"
    )
    server.add_argument(
        "--datacenter-redirect",
        action="store_true",
        help="name no regional API and answer a call to the wrong region 307, as the service does",
    )
    server.add_argument(
        "--redirect-to", metavar="URL", help="answer every hub-scoped call 307 to this base URL"
    )
    server.add_argument(
        "--no-hub-users",
        action="store_true",
        help="answer the hub-user operations 404 and 405, as a server without them does",
    )
    server.add_argument(
        "--page-size",
        type=int,
        metavar="N",
        help="send every list in OData pages of N records, each naming the next "
        "(@odata.nextLink), as the service may",
    )
    server.add_argument(
        "--no-project-list",
        action="store_true",
        help="answer a hub's project list 404, as the published document (which has none) does",
    )
    server.add_argument(
        "--refuse-with-code",
        metavar="CODE",
        help="answer every call 409 with this Code (e.g. USER_PROFILE_NOT_CREATED)",
    )
    server.add_argument(
        "--keep-answers",
        action="store_true",
        help="answer a read asked before with its first answer's bytes until the next change "
        "(answers that cost the server almost nothing, for benchmarks)",
    )
    # One place lists the commands: the parser's own, each named once.
    parser.description = (
        f"{parser.description} With a command ({', '.join(commands.choices)}) it does that "
        "and exits; without one it starts the app."
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # `import httpx` loads httpx's own command-line client whenever click is installed
    # (uvicorn brings it), with click and pygments: 15 ms of every start. hubtui never runs it.
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
    from hubtui.core.workspace import open_workspace  # after the line above: it loads httpx

    args = parse_arguments(argv)
    if args.command == "demo-server":
        return run_demo_server(args)
    if args.concurrency is not None and args.concurrency < 1:
        print("hubtui: --concurrency takes a whole number of 1 or more", file=sys.stderr)
        return 2
    try:
        settings = settings_from(args, profile=args.profile)
    except ConfigError as exc:
        print(f"hubtui: {exc}", file=sys.stderr)
        return 2
    if args.command is not None and (args.command == "store" or _file_pair(args)):
        # The store, or two files: no server needed.
        from hubtui import headless

        demo = demo_connector if args.demo else None
        return headless.run(args, open_workspace(settings, demo=demo))
    refused = _no_server_words(args, settings)
    if refused:
        print(f"hubtui: {refused}", file=sys.stderr)
        return 2
    if args.command == "serve":
        return run_web(args)  # each page's app checks and logs for itself
    if args.log_file:
        start_log(args.log_file)

    def settings_for(profile: str | None) -> Settings:
        """Settings, token included, read again for a profile (ConfigError when wrong).
        --base-url and --token-file name the server hubtui started on and its token: they
        never go with another profile."""
        return settings_from(args, profile=profile, flags=profile == settings.profile)

    is_headless = args.command is not None and _headless(args.command)
    try:
        workspace = open_workspace(
            settings,
            demo=demo_connector if args.demo else None,
            offline=args.offline,
            settings_for=settings_for,
            # HUBTUI_TOKEN read again is the same token: only a command or a file gives another.
            rereads_token=not args.demo and not os.environ.get("HUBTUI_TOKEN"),
            on_unlogged=unlogged if is_headless else None,
        )
    except ConfigError as exc:
        print(f"hubtui: {exc}", file=sys.stderr)
        return 2
    if is_headless:
        from hubtui import headless

        return headless.run(args, workspace)
    return run_app(workspace)


def _no_server_words(args: argparse.Namespace, settings: Settings) -> str:
    """Why this command cannot reach a server (empty: it can)."""
    if args.offline and (args.command == "snapshot" or getattr(args, "until", "") == "now"):
        return (
            f"{args.command} reads the server now, which --offline never does (hubtui diff "
            "--since #M --until #N compares two snapshots kept)."
        )
    if not args.demo and not settings.base_url:
        return (
            "no server given. Use --base-url, HUBTUI_BASE_URL or base_url in the config file, "
            "or try the demo with: hubtui --demo"
        )
    return ""


def run_app(workspace: Workspace) -> int:
    """The app on this terminal, or why it cannot run here (exit 2)."""
    if os.environ.get("TERM") == "dumb":
        print(
            "hubtui: this terminal (TERM=dumb) cannot show the app. The same answers come "
            "from the commands: hubtui hubs, hub, projects, users, who (see hubtui --help).",
            file=sys.stderr,
        )
        return 2

    # hubtui serve runs the app behind a web page, whose driver needs no terminal.
    if "TEXTUAL_DRIVER" not in os.environ and not (sys.stdin.isatty() and sys.stdout.isatty()):
        print(
            "hubtui: the app needs a terminal for its input and output, and "
            f"{'standard input' if not sys.stdin.isatty() else 'standard output'} is not one "
            "(a script, a pipe or a cron job). The same answers come from the commands: "
            "hubtui hubs, hub, projects, users, who (see hubtui --help).",
            file=sys.stderr,
        )
        return 2

    from hubtui.tui.app import HubTuiApp

    app = HubTuiApp(workspace)
    app.watch_terminal()
    if sys.stdout.isatty():
        # The terminal's own size, at start and at every resize: a COLUMNS or LINES left in the
        # environment (by a shell, or another terminal) would lay the app out for another one.
        os.environ.pop("COLUMNS", None)
        os.environ.pop("LINES", None)
    app.run()
    return app.return_code or 0


def unlogged(message: str) -> None:
    """A headless command's outcome that the change log could not take: a warning on stderr,
    with the line to add by hand."""
    print(
        f"hubtui: WARNING: an outcome is not in the change log. {inert(message, limit=None)}",
        file=sys.stderr,
    )


def settings_from(args: argparse.Namespace, *, profile: str | None, flags: bool = True) -> Settings:
    """The settings for these flags and this profile (the token read again); ``flags`` False
    leaves out the server and token flags (another profile's server is not theirs)."""
    return load_settings(
        base_url=args.base_url if flags else None,
        token_file=args.token_file if flags else None,
        api_version=args.api_version,
        allow_insecure_http=args.allow_insecure_http,
        ca_bundle=args.ca_bundle,
        concurrency=args.concurrency,
        profile=profile,
        store="off" if args.no_store else None,
        store_url=args.store_url,
        read_only=args.read_only,  # offline is read-only too: the Workspace says so
        need_token=not (args.demo or getattr(args, "offline", False)),
    )


def start_log(path: str) -> None:
    """Send hubtui's debug log (requests and responses, token redacted) to a file.

    The file is the person's alone (0600), and every line is escaped: a server's text never
    moves the cursor or sets a title in a terminal that reads the log.
    """

    class SafeFormatter(logging.Formatter):
        def format(self, record: logging.LogRecord) -> str:
            return log_safe(super().format(record))

    class PrivateFileHandler(logging.FileHandler):
        def _open(self) -> Any:
            flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC
            descriptor = os.open(self.baseFilename, flags, 0o600)
            os.fchmod(descriptor, 0o600)
            return os.fdopen(descriptor, "a", encoding="utf-8")

    handler = PrivateFileHandler(path, encoding="utf-8")
    handler.setFormatter(SafeFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    log = logging.getLogger("hubtui")
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)


def demo_connector(settings: Settings, *, last_week: bool = False) -> Callable[[], HubClient]:
    """Build, when called, a client talking in-process to a fresh demo API (``last_week``: to
    the demo's data as it was a week ago)."""

    def connect() -> HubClient:
        import httpx

        from hubtui import demo
        from hubtui.core.workspace.connection import DEMO_BASE_URL, configured_client

        data = demo.last_week() if last_week else demo.DemoStore()
        transport = httpx.ASGITransport(app=demo.create_app(data))
        return configured_client(settings, DEMO_BASE_URL, demo.DEMO_TOKEN, transport)

    return connect


def run_demo_server(args: argparse.Namespace) -> int:
    import uvicorn

    from hubtui.demo import DEMO_TOKEN, DemoSize, DemoStore, Faults, create_app

    try:
        statuses = tuple(int(s) for s in args.failure_statuses.split(",") if s.strip())
    except ValueError:
        print("hubtui: --failure-statuses takes numbers such as 429,500,503", file=sys.stderr)
        return 2
    size = DemoSize(
        seed=args.seed,
        hubs=args.hubs,
        projects_per_hub=args.projects_per_hub,
        users_per_project=args.users_per_project,
        people_per_hub=args.people_per_hub,
        big_project_users=args.big_project_users,
    )
    faults = Faults(
        latency=args.latency,
        failure_rate=args.failure_rate,
        failure_statuses=statuses or (503,),
        retry_after=args.retry_after,
        malformed_rate=args.malformed_rate,
        truncated_rate=args.truncated_rate,
        change_failure_status=args.change_failure_status,
        change_latency=args.change_latency,
        datacenter_redirect=args.datacenter_redirect,
        redirect_to=args.redirect_to,
        refuse_with_code=args.refuse_with_code,
        no_hub_users=args.no_hub_users,
        projects_listing_status=404 if args.no_project_list else None,
        page_size=args.page_size,
        keep_answers=args.keep_answers,
        seed=args.seed,
    )
    app = create_app(DemoStore(size), faults)
    # Bound here, so that the banner names the real port (--port 0 picks a free one) and a busy
    # port is one clear line.
    try:
        sock = listening_socket(args.host, args.port)
    except OSError as exc:
        print(
            f"hubtui: cannot listen on {args.host}:{args.port}: {exc.strerror}. Choose another "
            "with --port (--port 0 picks a free one).",
            file=sys.stderr,
        )
        return 2
    port = sock.getsockname()[1]
    print(
        f"hubtui demo API on http://{args.host}:{port} (token: {DEMO_TOKEN}). Stop with Ctrl+C.",
        flush=True,
    )
    pauses = app.state.pauses

    class DemoServer(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            """Asked to stop (Ctrl+C, SIGTERM): answers held by --latency or --change-latency go
            now; uvicorn would wait for each to the end of its pause before stopping."""
            super().handle_exit(sig, frame)
            pauses.end()

    server = DemoServer(uvicorn.Config(app, log_level="warning"))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # the server shut down first, then raises the signal it caught
        pass
    print("hubtui demo API stopped.", file=sys.stderr)
    return 0


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket listening on ``host:port`` whose every accepted connection sends at once.
    Listening before the banner names it: a connection made as soon as the banner is read
    waits in its queue until the server accepts it, rather than being refused.

    IPPROTO_TCP by name: asyncio turns Nagle's algorithm off (TCP_NODELAY) only on sockets that
    say they are TCP, and a socket made with protocol 0 (and every connection it accepts) does
    not. With Nagle on, an answer's body waited for the ACK of its headers, which a client
    delays by 40 ms: every answer on a kept-alive connection came 40 ms late.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen()  # uvicorn sets its own backlog when it starts serving
    except OSError:
        sock.close()
        raise
    return sock


def app_options(args: argparse.Namespace) -> list[str]:
    """The options given before the command, as flags again (the token is never among them)."""
    options = ["--demo"] if args.demo else []
    for flag, value in (
        ("--profile", args.profile),
        ("--base-url", args.base_url),
        ("--token-file", args.token_file),
        ("--api-version", args.api_version),
        ("--ca-bundle", args.ca_bundle),
        ("--concurrency", args.concurrency),
        ("--log-file", args.log_file),
    ):
        if value is not None:
            options += [flag, str(value)]
    if args.read_only:
        options.append("--read-only")
    if args.allow_insecure_http:
        options.append("--allow-insecure-http")
    return options


def run_web(args: argparse.Namespace) -> int:
    """The app in a browser: each page runs ``hubtui`` with the options given before ``serve``.

    Only the page opened from the address printed here can use it (see :mod:`hubtui.web`).
    """
    try:
        import textual_serve  # noqa: F401
    except ImportError:
        print("hubtui: serve needs the web extra: pip install 'hubtui[web]'", file=sys.stderr)
        return 2
    from hubtui.web import guarded_server, new_secret, page_url

    command = shlex.join([sys.executable, "-m", "hubtui", *app_options(args)])
    secret = new_secret()
    server = guarded_server(command, args.port, secret)
    # aiohttp's access log would print the address with its secret.
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)
    print(
        f"hubtui: serving the app at {page_url(args.port, secret)}\n"
        "Open that address (it holds a secret made for this run; without it the page is "
        "refused). Ctrl+C stops.",
        flush=True,
    )
    server.serve()
    return 0
