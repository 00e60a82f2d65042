"""Schemathesis hooks for compactd's API run (tests/api/schemathesis.rs).

An Idempotency-Key makes the service replay the first answer, or refuse (422)
another body with the same key: schemathesis reusing one generated key for
different bodies would be testing that rule, not the request. So a valid key
becomes a key of its own before each call (an invalid one is left as it is,
to be refused); tests/api/idempotency.rs covers reuse.

Likewise `/summarize`'s `invented` names identifiers that stand in its
`summary` (a rule no schema can state): a generated list of names is written
into the generated summary, so the call tests the request rather than that
rule; tests/api/summarize.rs covers the rule (422 for a name not in it).
"""

import re
import uuid

import schemathesis

VALID_KEY = re.compile(r"^[\x21-\x7E]{1,255}$")


@schemathesis.hook
def before_call(context, case, kwargs):
    headers = case.headers or {}
    for name in list(headers):
        value = headers[name]
        if name.lower() == "idempotency-key" and isinstance(value, str) and VALID_KEY.match(value):
            headers[name] = uuid.uuid4().hex
    invented_in_summary(case, kwargs)


def invented_in_summary(case, kwargs):
    body = case.body
    if case.path != "/summarize" or not isinstance(body, dict):
        return
    names = body.get("invented")
    if not isinstance(names, list) or not 0 < len(names) <= 200 or not all(isinstance(n, str) for n in names):
        return
    names = [name if name.strip() else "unnamed" for name in names]
    body["invented"] = names
    summary = body.get("summary")
    body["summary"] = (summary if isinstance(summary, str) else "") + " " + " ".join(names)
    if isinstance(kwargs.get("json"), dict):
        kwargs["json"] = body
