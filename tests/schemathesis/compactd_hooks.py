"""Schemathesis hooks for compactd's API run (tests/api/schemathesis.rs).

An Idempotency-Key makes the service replay the first answer, or refuse (422)
another body with the same key: schemathesis reusing one generated key for
different bodies would be testing that rule, not the request. So a valid key
becomes a key of its own before each call (an invalid one is left as it is,
to be refused); tests/api/idempotency.rs covers reuse.
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
