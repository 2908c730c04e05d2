"""A minimal agent loop on StrataGate with the Python client (see agent-loop.ts for TypeScript).

For each user message: recall the memory's background, call the model, post the finished turn.
When a question needs the past: search, let the model judge what was found, adopt what the
answer used. The model is a function, so any chat API fits. Run it against a server:
STRATAGATE_URL=… STRATAGATE_API_KEY=… python3 examples/agent_loop.py
"""

from __future__ import annotations

import os
import re
import sys
from typing import Callable, List, Tuple

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients", "python"))

from stratagate_client import Judgement, NotFoundError, StrataGate  # noqa: E402

Model = Callable[[str, str], str]
"""A chat model: a system prompt and a user message in, a reply out."""


def reply(sg: StrataGate, model: Model, space_id: str, thread_id: str, text: str) -> str:
    """One user message answered: recall → model → record the turn."""
    try:
        context = sg.call("recall", {"message": text}, spaceId=space_id, threadId=thread_id)["contextText"]
    except NotFoundError as error:  # a space exists from its first turn on
        if error.code != "space_not_found":
            raise
        context = ""
    answer = model(context, text)
    sg.call(
        "recordTurn",
        {"threadId": thread_id, "messages": [{"role": "user", "content": text}, {"role": "assistant", "content": answer}]},
        spaceId=space_id,
    )
    return answer


def answer_from_memory(sg: StrataGate, model: Model, space_id: str, thread_id: str, question: str):
    """A question answered with the evidence gate; only the hit the model chose is adopted."""

    def judge(found) -> Judgement[str]:
        listing = "\n".join(f"{h['ref']}: {h['summary']}" for h in found["hits"])
        choice = model('Which ref answers? Reply with the ref or "none".', listing).strip()
        if choice not in found["evidenceRefs"]:
            return Judgement("partial", [], "", missing=question)
        hit = next(h for h in found["hits"] if h["ref"] == choice)
        return Judgement("sufficient", [choice], hit["title"], answer=hit["summary"])

    return sg.answer_with_evidence(space_id, thread_id, {"query": question}, judge)


def run_conversation(sg: StrataGate, model: Model, space_id: str, sessions: List[Tuple[str, List[str]]]):
    """Runs the sessions one after another, closing each, then waits until memory is made."""
    for thread_id, messages in sessions:
        for text in messages:
            reply(sg, model, space_id, thread_id, text)
        sg.call("closeThread", spaceId=space_id, threadId=thread_id)
    return sg.wait_until_settled(space_id)


def stand_in_model(word: str) -> Model:
    """A stand-in model: acknowledges, and as a judge picks the first ref whose line has a word."""

    def model(system: str, user: str) -> str:
        if not system.startswith("Which ref"):
            return "Noted."
        line = next((l for l in user.split("\n") if re.search(word, l, re.I)), None)
        return line[: line.index(": ")] if line else "none"

    return model


if __name__ == "__main__":
    sg = StrataGate(os.environ.get("STRATAGATE_URL", "http://127.0.0.1:8787"), os.environ["STRATAGATE_API_KEY"])
    model = stand_in_model("pnpm")
    run_conversation(sg, model, "example-py", [("monday", ["Our project Atlas uses npm.", "We switched Atlas to pnpm."])])
    answered = answer_from_memory(sg, model, "example-py", "tuesday", "Which package manager does Atlas use?")
    print(answered.answer, f"(reinforced {answered.adoption['incremented']})")
