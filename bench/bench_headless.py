"""The headless commands beside `curl | jq` on the same server, in the same minute.

`hubtui demo-server --big-project-users 50000`; each figure is the median of 7 runs, the two
commands alternating:
- `hubtui users load-test PROJECT --format jsonl` against `curl -s … | jq -c '.[]'`;
- `hubtui hubs --format jsonl` against `python -c "import textual.app"`, the least the app must
  import before its first frame;
- `hubtui hubs --format json` against the same list fetched and printed by a script that imports
  the typed stack (`httpx` and `pydantic`) and sends the same request: what the command costs
  beyond its libraries' imports and the request. Goal: 1.3× or less. (Against a standard-library
  script, the former anchor, the typed stack's imports alone cost more than 2.5×: that goal is
  withdrawn, and its figure still printed.) `import pydantic` loads neither `BaseModel` nor its
  validators (pydantic imports them when first asked for), so a third figure sets the command
  beside the same script when it reads the list as a client built on that stack does: an
  `httpx.AsyncClient` under `asyncio.run`, each record validated into a `BaseModel`.

The app's modules are byte-compiled first, as an install leaves them (a module edited since would
otherwise be compiled again at every run where PYTHONDONTWRITEBYTECODE is set).

    python -m bench.bench_headless
"""

from __future__ import annotations

import compileall
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

import hubtui as hubtui_package
from hubtui.demo import DEMO_TOKEN
from tests.harness.harness import hubtui_command, running_demo_server

#: The anchor of ``hubs --format json``: the same list fetched and printed with the typed stack's
#: imports (what hubtui's client is built on) and nothing else.
TYPED_HUBS = (
    "import json, os, sys, httpx, pydantic\n"
    "answer = httpx.get(sys.argv[1] + '/v3/hubs', headers={'Authorization': "
    "'Bearer ' + os.environ['HUBTUI_TOKEN']})\n"
    "print(json.dumps(answer.json(), indent=2, ensure_ascii=False))"
)
#: The same list read the way a typed async client reads it: the stack's model machinery loaded,
#: each record validated into a model, the JSON value printed as sent.
TYPED_ASYNC_HUBS = (
    "import asyncio, json, os, sys, httpx\n"
    "from pydantic import BaseModel, ConfigDict, TypeAdapter\n"
    "class Hub(BaseModel):\n"
    "    model_config = ConfigDict(extra='allow')\n"
    "    Id: str\n"
    "    Name: str\n"
    "async def main():\n"
    "    async with httpx.AsyncClient() as client:\n"
    "        answer = await client.get(sys.argv[1] + '/v3/hubs', headers={'Authorization': "
    "'Bearer ' + os.environ['HUBTUI_TOKEN']})\n"
    "    sent = json.loads(answer.content)\n"
    "    TypeAdapter(list[Hub]).validate_python(sent)\n"
    "    print(json.dumps(sent, indent=2, ensure_ascii=False))\n"
    "asyncio.run(main())"
)
#: The former anchor: the same list fetched and printed by the standard library alone.
STDLIB_HUBS = (
    "import json, os, sys, urllib.request\n"
    "request = urllib.request.Request(sys.argv[1] + '/v3/hubs', headers={'Authorization': "
    "'Bearer ' + os.environ['HUBTUI_TOKEN']})\n"
    "print(json.dumps(json.load(urllib.request.urlopen(request)), indent=2, ensure_ascii=False))"
)


def timed(command: str, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, shell=True, check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    compileall.compile_dir(Path(hubtui_package.__file__).parent, quiet=1)
    env = {**os.environ, "HUBTUI_TOKEN": DEMO_TOKEN, "HUBTUI_CONFIG": "/nonexistent"}
    hubtui = shlex.join(hubtui_command())
    with running_demo_server("--big-project-users", "50000") as url:
        headers = {"Authorization": f"Bearer {DEMO_TOKEN}"}
        hub = httpx.get(f"{url}/v3/hubs/name/load-test", headers=headers).json()
        regional = (hub.get("RegionSummary") or {}).get("ApiRegionalUrl") or url
        project = httpx.get(f"{regional}/v3/hubs/{hub['Id']}/projects", headers=headers).json()[0]
        users_url = f"{regional}/v3/hubs/{hub['Id']}/projects/{project['Id']}/users"
        pairs = {
            "users of 50,000 as jsonl": (
                f"{hubtui} --base-url {url} users load-test {project['Id']} --format jsonl",
                f"curl -s -H 'Authorization: Bearer {DEMO_TOKEN}' {users_url} | jq -c '.[]'",
                "curl | jq",
            ),
            "hubs as json": (
                f"{hubtui} --base-url {url} hubs --format json",
                f"{shlex.quote(sys.executable)} -c {shlex.quote(TYPED_HUBS)} {url}",
                "httpx + pydantic",
            ),
            "hubs as json (typed async)": (
                f"{hubtui} --base-url {url} hubs --format json",
                f"{shlex.quote(sys.executable)} -c {shlex.quote(TYPED_ASYNC_HUBS)} {url}",
                "AsyncClient + BaseModel",
            ),
            "hubs as json (former anchor)": (
                f"{hubtui} --base-url {url} hubs --format json",
                f"{shlex.quote(sys.executable)} -c {shlex.quote(STDLIB_HUBS)} {url}",
                "urllib + json",
            ),
            "hubs as jsonl (start-up)": (
                f"{hubtui} --base-url {url} hubs --format jsonl",
                f"{shlex.quote(sys.executable)} -c 'import textual.app'",
                "import textual.app",
            ),
        }
        print(f"{'figure':<30} {'hubtui s':>9} {'anchor s':>9} {'ratio':>6}  anchor")
        for name, (ours, anchor, anchor_name) in pairs.items():
            timed(ours, env)  # warm: the server's first answer and the file cache
            mine, theirs = [], []
            for _ in range(7):
                mine.append(timed(ours, env))
                theirs.append(timed(anchor, env))
            a, b = statistics.median(mine), statistics.median(theirs)
            print(f"{name:<30} {a:>9.2f} {b:>9.2f} {a / b:>6.2f}  {anchor_name}")


if __name__ == "__main__":
    main()
