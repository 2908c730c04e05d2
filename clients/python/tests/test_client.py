"""The Python client against a real StrataGate server.

With STRATAGATE_URL and STRATAGATE_TEST_KEY set (and STRATAGATE_TEST_OTHER_KEY, a key of
another tenant), the tests use that server; otherwise they start one (`node bin/stratagate.mjs
serve` on a fresh data directory, which needs the repository's `npm install`).
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))

from stratagate_client import (  # noqa: E402
    OPERATIONS,
    ConflictError,
    ConnectionFailedError,
    InvalidRequestError,
    Judgement,
    NotFoundError,
    RejectedError,
    StrataGate,
    UnauthorizedError,
    error_from_answer,
    global_space_id,
    project_space_id,
    session_space_id,
)

SPACE = "py-round"


class Server:
    """The server under test: given by the environment, or started here."""

    def __init__(self) -> None:
        self.process = None
        self.data_dir = None
        self.url = os.environ.get("STRATAGATE_URL")
        self.key = os.environ.get("STRATAGATE_TEST_KEY")
        self.other_key = os.environ.get("STRATAGATE_TEST_OTHER_KEY")
        if self.url and self.key:
            return
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.data_dir = tempfile.mkdtemp(prefix="sg-py-")
        self.key = "py-test-" + secrets.token_hex(20)
        env = {
            **os.environ,
            "STRATAGATE_DATA_DIR": self.data_dir,
            "STRATAGATE_PORT": str(port),
            "STRATAGATE_API_KEY": self.key,
            "STRATAGATE_LOG_LEVEL": "warn",
        }
        self.process = subprocess.Popen(
            ["node", os.path.join(REPO, "bin", "stratagate.mjs"), "serve"],
            env=env,
            stdout=subprocess.DEVNULL,
        )
        self.url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(self.url + "/readyz", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the StrataGate server did not start")
            time.sleep(0.3)
        made = subprocess.run(
            ["node", os.path.join(REPO, "bin", "stratagate.mjs"), "keys", "create", "--tenant", "py-other"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        self.other_key = made.stdout.strip().splitlines()[-1]

    def stop(self) -> None:
        if self.process:
            self.process.terminate()
            self.process.wait(timeout=30)
        if self.data_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)


server: Server


def setUpModule() -> None:
    global server
    server = Server()


def tearDownModule() -> None:
    server.stop()


def first_event_ref(found):
    return next(r for r in found["evidenceRefs"] if r.startswith("event:"))


class ClientAgainstServer(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.sg = StrataGate(server.url, server.key)

    def test_every_served_operation_is_callable(self) -> None:
        with urllib.request.urlopen(server.url + "/openapi.json") as r:
            doc = json.load(r)
        served = sorted(
            f"{op['operationId']} {method.upper()} {path}"
            for path, item in doc["paths"].items()
            if path.startswith("/v1/")
            for method, op in item.items()
            if method in ("get", "put", "post", "delete", "patch")
        )
        mine = sorted(f"{name} {op['method']} {op['path']}" for name, op in OPERATIONS.items())
        self.assertGreaterEqual(len(served), 20)
        self.assertEqual(mine, served, "run `npm run client:generate`")

    def test_round_turns_settle_recall_search_assess_adopt(self) -> None:
        sg = self.sg
        sg.call("configureSpace", {"blockSize": 2}, spaceId=SPACE)
        for i, content in enumerate(
            ["Our project Atlas uses npm.", "We switched Atlas to pnpm because installs are faster."]
        ):
            turn = sg.call(
                "recordTurn",
                {
                    "threadId": "s1",
                    "occurredAt": f"2023-05-0{i + 1}T10:00:00Z",
                    "messages": [
                        {"role": "user", "name": "Caroline", "content": content},
                        {"role": "assistant", "content": "Noted."},
                    ],
                },
                spaceId=SPACE,
            )
            self.assertEqual(len(turn["turnId"]), 36)  # made by the client
        status = sg.wait_until_settled(SPACE)
        self.assertTrue(status["settled"])
        self.assertEqual(status["turnCounter"], 2)

        recall = sg.call("recall", {"message": "Which package manager does Atlas use now?"}, spaceId=SPACE, threadId="s2")
        self.assertIn("pnpm", recall["contextText"])

        found = sg.call("searchEvents", {"query": "Atlas package manager pnpm"}, spaceId=SPACE, threadId="s2")
        ref = first_event_ref(found)
        event_id = ref[len("event:"):]
        before = sg.call("getMemoryEvent", spaceId=SPACE, eventId=event_id)
        assessed = sg.call(
            "assessEvidence",
            {
                "batchId": found["batchId"],
                "verdict": "sufficient",
                "evidence_refs": [ref],
                "fit": "says Atlas switched to pnpm",
                "next_strategy": "answer",
            },
            spaceId=SPACE,
            threadId="s2",
        )
        self.assertEqual(assessed["verdict"], "sufficient")
        adopted = sg.call(
            "adoptEvidence", {"batchId": found["batchId"], "evidence_refs": [ref]}, spaceId=SPACE, threadId="s2"
        )
        self.assertEqual(adopted["incremented"], 1)
        sg.wait_until_settled(SPACE)
        after = sg.call("getMemoryEvent", spaceId=SPACE, eventId=event_id)
        self.assertEqual(after["weight"]["mentionCount"], before["weight"]["mentionCount"] + 1)

        def judge(found):
            hit = first_event_ref(found)
            return Judgement("sufficient", [hit], "names the package manager", answer="pnpm")

        answered = self.sg.answer_with_evidence(SPACE, "s3", {"query": "Atlas pnpm"}, judge)
        self.assertEqual(answered.answer, "pnpm")
        self.assertEqual(answered.adoption["incremented"], 1)
        self.assertEqual(answered.adoption["unresolvedBatchIds"], [])
        unsure = self.sg.answer_with_evidence(
            SPACE, "s3", {"query": "Atlas deadline"}, lambda f: Judgement("partial", [], "", missing="the date")
        )
        self.assertIsNone(unsure.answer)
        self.assertEqual(unsure.adoption["incremented"], 0)

    def test_export_file_is_text_and_imports_elsewhere(self) -> None:
        sg = self.sg
        sg.call("recordTurn", {"messages": [{"role": "user", "content": "Atlas ships in May."}]}, spaceId="py-export")
        original = sg.wait_until_settled("py-export")
        file = sg.call("exportSpace", spaceId="py-export")
        self.assertIsInstance(file, str)
        imported = sg.call("importSpace", file, spaceId="py-copy")
        self.assertEqual(imported["target"]["spaceId"], "py-copy")
        self.assertEqual(sg.wait_until_settled("py-copy")["turnCounter"], original["turnCounter"])

    def test_typed_errors(self) -> None:
        sg = self.sg
        sg.call("recordTurn", {"messages": [{"role": "user", "content": "Atlas uses pnpm."}]}, spaceId="py-errors")
        sg.wait_until_settled("py-errors")
        with self.assertRaises(InvalidRequestError) as invalid:
            sg.call("searchEvents", {"query": "x", "limit": 99}, spaceId="py-errors", threadId="t")
        self.assertEqual(invalid.exception.code, "invalid_request")
        self.assertEqual(invalid.exception.issues[0]["path"], "/limit")
        with self.assertRaises(NotFoundError) as missing:
            sg.call("getMemoryEvent", spaceId="py-errors", eventId="evt_nothing")
        self.assertEqual(missing.exception.code, "memory_event_not_found")
        body = {"turnId": "py-fixed", "messages": [{"role": "user", "content": "a"}]}
        sg.call("recordTurn", body, spaceId="py-errors")
        with self.assertRaises(ConflictError) as reused:
            sg.call("recordTurn", {**body, "messages": [{"role": "user", "content": "b"}]}, spaceId="py-errors")
        self.assertEqual(reused.exception.code, "turn_id_reused")
        self.assertFalse(reused.exception.retryable)
        found = sg.call("searchEvents", {"query": "Atlas"}, spaceId="py-errors", threadId="t")
        with self.assertRaises(RejectedError) as rejected:
            sg.call(
                "adoptEvidence",
                {"batchId": found["batchId"], "evidence_refs": ["event:not-in-batch"]},
                spaceId="py-errors",
                threadId="t",
            )
        self.assertEqual(rejected.exception.status, 422)
        with self.assertRaises(UnauthorizedError):
            StrataGate(server.url, "sg_wrong").call("listSpaces")
        with self.assertRaises(ConnectionFailedError):
            StrataGate("http://127.0.0.1:9", server.key, retries=0).call("listSpaces")
        with self.assertRaises(TypeError):
            sg.call("listSpaces", nonsense=1)

    def test_other_tenant_sees_nothing(self) -> None:
        self.sg.call("recordTurn", {"messages": [{"role": "user", "content": "mine"}]}, spaceId="py-tenant")
        other = StrataGate(server.url, server.other_key)
        with self.assertRaises(NotFoundError) as caught:
            other.call("getSpaceStatus", spaceId="py-tenant")
        self.assertEqual(caught.exception.code, "space_not_found")
        self.assertNotIn("py-tenant", [s["spaceId"] for s in other.call("listSpaces")["spaces"]])


class ExampleAgentLoop(unittest.TestCase):
    def test_examples_agent_loop_remembers_across_sessions(self) -> None:
        sys.path.insert(0, os.path.join(REPO, "examples"))
        import agent_loop  # examples/agent_loop.py

        sg = StrataGate(server.url, server.key)
        model = agent_loop.stand_in_model("pnpm")
        sessions = [("monday", ["Our project Atlas uses npm.", "We switched Atlas to pnpm."]), ("tuesday", ["Hello."])]
        settled = agent_loop.run_conversation(sg, model, "py-example", sessions)
        self.assertEqual(settled["turnCounter"], 3)
        answered = agent_loop.answer_from_memory(sg, model, "py-example", "wednesday", "Atlas package manager")
        self.assertIn("pnpm", answered.answer)
        self.assertEqual(answered.adoption["incremented"], 1)


class Offline(unittest.TestCase):
    def test_space_ids(self) -> None:
        expected = hashlib.sha256(b"/home/ada/atlas").hexdigest()[:20]
        self.assertEqual(project_space_id("/home/ada/atlas"), "project:" + expected)
        self.assertEqual(project_space_id("."), project_space_id(os.getcwd().upper()))
        self.assertEqual(session_space_id("s-42"), "session:s-42")
        self.assertEqual(global_space_id("team"), "global:team")
        with self.assertRaises(ValueError):
            session_space_id("has space")

    def test_errors_keep_unknown_codes_and_report_bodies_that_are_not_envelopes(self) -> None:
        newer = error_from_answer(404, {"error": {"code": "topic_not_found", "message": "x"}})
        self.assertIsInstance(newer, NotFoundError)
        self.assertEqual(newer.code, "topic_not_found")
        page = error_from_answer(502, "<html>")
        self.assertEqual(page.code, "unexpected_response")


if __name__ == "__main__":
    unittest.main()
