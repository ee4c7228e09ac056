"""Contract tests (issue 5): every operation of every generated client against a Prism mock.

Prism serves each family's document after overlays and validates every request against it (path,
parameters, headers, credential, body), so a client that sends something the document does not
allow gets a 4xx validation problem instead of a mocked answer. The mocked answers are built from
the document (examples, or json-schema-faker in dynamic mode) and must parse into the client's
models. Each documented error status is forced with ``Prefer: code=NNN`` and must raise its
exception class carrying the body's message. The session ends with one line per family and mode:
``contract coverage: X/Y operations (FAMILY, static|dynamic)``.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import traceback
from collections.abc import Callable
from typing import Any

import httpx2
import pytest
from cube_client import (
    APIError,
    APIResponseValidationError,
    APIStatusError,
    APIStreamError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    IncompleteStreamError,
    InternalServerError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    UnprocessableEntityError,
)
from cube_client._exceptions import JobExpiredError
from prism_contract_support import ContractFamily, PrismServer

from generator.emit import testcases
from generator.ir.types import ListOf, ModelRef, TypeRef
from tests.contract.contract_coverage import Coverage

pytestmark = pytest.mark.slow

ERRORS: dict[int, type[APIStatusError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}


def expected_error(status: int) -> type[APIStatusError]:
    return InternalServerError if status >= 500 else ERRORS.get(status, APIStatusError)


def op_name(case: testcases.TestCase) -> str:
    return f"{case.resource_attr}.{case.op.py_name}"


def documented_errors(case: testcases.TestCase) -> list[int]:
    return sorted(int(r.status) for r in case.op.errors if r.status.isdigit())


def client_operations(client: Any, family: ContractFamily) -> set[str]:
    """Every operation method the generated client exposes, as ``resource.method``.

    Job helpers (``<submit>_job``) are not operations of their own: they are checked with the
    submit operation.
    """
    helpers = {f"{c.resource_attr}.{c.op.job.method}" for c in family.cases if c.op.job}
    helpers |= {
        f"{c.resource_attr}.{c.op.token_job.method}" for c in family.cases if c.op.token_job
    }
    out: set[str] = set()
    for attr in {c.resource_attr for c in family.cases} | _resource_attrs(client):
        resource = getattr(client, attr)
        for name, _member in inspect.getmembers(type(resource), inspect.isfunction):
            if not name.startswith("_"):
                out.add(f"{attr}.{name}")
    return out - helpers


def _resource_attrs(client: Any) -> set[str]:
    import functools

    return {
        name
        for name, member in inspect.getmembers(type(client))
        if isinstance(member, functools.cached_property) and name != "with_raw_response"
    }


def call_args(case: testcases.TestCase, family: ContractFamily) -> tuple[list[Any], dict[str, Any]]:
    # The sources are our own generator's expressions (models, literals, datetime), built so
    # the request is valid for the document.
    namespace = family.namespace()
    positional = [eval(a.code, namespace) for a in case.args if a.positional]
    keywords = {a.py_name: eval(a.code, namespace) for a in case.args if not a.positional}
    return positional, keywords


def check_type(value: Any, t: TypeRef, family: ContractFamily) -> None:
    match t:
        case ModelRef(name):
            cls = getattr(family.models, name)
            assert isinstance(value, cls), f"expected {name}, got {type(value).__name__}"
        case ListOf(ModelRef(name)):
            cls = getattr(family.models, name)
            assert isinstance(value, list), f"expected list[{name}], got {type(value).__name__}"
            assert all(isinstance(v, cls) for v in value), f"expected list[{name}]: {value!r}"


def check_result(case: testcases.TestCase, value: Any, family: ContractFamily) -> None:
    op = case.op
    if op.pagination is not None:
        assert isinstance(value, list), f"page items are {type(value).__name__}"
        for item in value:
            check_type(item, op.pagination.item_type, family)
    elif op.success.kind in ("binary", "event-stream"):
        assert isinstance(value, (bytes, list)), type(value).__name__
    elif op.success.kind == "json-lines":
        assert isinstance(value, list) and value, f"no line in {value!r}"
        for item in value:
            if item is not RULED_OUT:
                check_type(item, op.success.type, family)
    elif op.success.kind == "text":
        assert isinstance(value, str), f"text response parsed as {type(value).__name__}"
    elif op.success.kind == "empty":
        assert value is None, f"empty response parsed as {value!r}"
    else:
        check_type(value, op.success.type, family)


# Stands for a Prism answer that the stream's own rules turn into an error (see _ruled_out).
RULED_OUT = object()


def _ruled_out(case: testcases.TestCase, exc: Exception) -> bool:
    """Prism invents one object per answer: one the document calls an error line, or one that is
    not the final line (no final member, or another value of it), is rightly an error. Any other
    failure is a real one."""
    rules = case.op.success.lines
    if rules is None:
        return False
    if isinstance(exc, APIStreamError):
        line = exc.line
        return isinstance(line, dict) and rules.error_member in line
    if isinstance(exc, IncompleteStreamError):
        last = exc.last
        if not rules.final_member or not isinstance(last, dict):
            return False
        if rules.final_member not in last:
            return True
        return bool(rules.final_value) and last[rules.final_member] != rules.final_value
    return False


def consume_sync(case: testcases.TestCase, result: Any) -> Any:
    """Read the whole answer (streams included); page objects give their first page's items."""
    kind = case.op.success.kind
    if case.op.pagination is not None:
        return list(result.items)  # iterating would follow pages Prism invents without end
    if kind == "binary":
        with result:
            if (case.op.success.media_type or "").startswith("text/csv"):
                return [",".join(row).encode() for row in result.iter_csv_rows()]
            return result.read()
    if kind == "event-stream":
        # Prism answers the chat stream's `type: string` schema with a bare string, not SSE
        # frames, so no event is parsed: reading the stream to its end is what is checked.
        with result:
            return [event.data for event in result]
    if kind == "json-lines":
        items: list[Any] = []
        with result:
            try:
                items.extend(result)
            except (APIStreamError, IncompleteStreamError) as exc:
                if not _ruled_out(case, exc):
                    raise
                items.append(RULED_OUT)
        return items
    return result


async def consume_async(case: testcases.TestCase, result: Any) -> Any:
    kind = case.op.success.kind
    if case.op.pagination is not None:
        return list(result.items)
    if kind == "binary":
        async with result:
            if (case.op.success.media_type or "").startswith("text/csv"):
                return [",".join(row).encode() async for row in result.iter_csv_rows()]
            return await result.read()
    if kind == "event-stream":
        async with result:
            return [event.data async for event in result]
    if kind == "json-lines":
        items: list[Any] = []
        async with result:
            try:
                async for item in result:
                    items.append(item)
            except (APIStreamError, IncompleteStreamError) as exc:
                if not _ruled_out(case, exc):
                    raise
                items.append(RULED_OUT)
        return items
    return result


def describe(exc: BaseException) -> str:
    """The request the client sent and Prism's answer, as far as the exception knows them."""
    lines = [f"{type(exc).__name__}: {exc}"]
    response = getattr(exc, "response", None)
    request = getattr(exc, "request", None) or getattr(response, "request", None)
    if request is not None:
        lines.append(f"request: {request.method} {request.url}")
        for name, value in request.headers.items():
            shown = "[credential]" if name.lower() == "authorization" else value
            lines.append(f"  {name}: {shown}")
        try:
            if request.content:
                lines.append(f"  body: {request.content[:1000].decode('utf-8', 'replace')}")
        except Exception:  # a streamed request body cannot be shown
            pass
    if response is not None:
        lines.append(f"answer: {response.status_code} {response.headers.get('content-type', '')}")
        violations = response.headers.get("sl-violations")
        if violations:
            lines.append(f"  sl-violations: {violations}")
        if isinstance(exc, APIStatusError | APIResponseValidationError):
            lines.append(f"  body: {str(exc.body)[:1000]}")
    if not isinstance(exc, APIError):
        lines.append("".join(traceback.format_exception(exc)[-6:]))
    return "\n".join(lines)


def prism_flags_its_answer(exc: APIResponseValidationError) -> bool:
    """Whether Prism itself reports its mocked answer as violating the document's body schema
    (``sl-violations``). Its static mode writes such answers for some schemas (a date-time that
    misses the document's pattern, an ``if``/``then`` whose required properties it leaves out);
    the client rejecting them agrees with Prism's own validator, and dynamic mode checks that
    valid answers of the same operation parse."""
    raw = exc.response.headers.get("sl-violations")
    try:
        violations = json.loads(raw) if raw else []
    except ValueError:
        return False
    return any(
        isinstance(v, dict)
        and v.get("severity") == "Error"
        and list(v.get("location", []))[:2] == ["response", "body"]
        for v in violations
    )


def check_error(exc: BaseException, status: int) -> str | None:
    """None when ``exc`` is the documented error for ``status``; else what is wrong."""
    want = expected_error(status)
    if not isinstance(exc, want):
        return f"expected {want.__name__} for {status}, got:\n{describe(exc)}"
    assert isinstance(exc, APIStatusError)
    if exc.status_code != status:
        return f"expected status {status}, got:\n{describe(exc)}"
    body = exc.body
    if isinstance(body, dict) and isinstance(body.get("error"), str):
        if exc.message != body["error"]:
            return f"message {exc.message!r} is not the body's error {body['error']!r}"
    elif not exc.message:
        return f"no message for body {body!r}"
    return None


class Sweep:
    """Runs every operation of one family against one Prism with one client, collecting failures.

    ``run`` turns what a client method returns into its value: the identity for the sync client,
    ``asyncio.Runner.run`` for the async one (one event loop for the whole sweep).
    """

    def __init__(
        self,
        prism: PrismServer,
        coverage: Coverage,
        client: Any,
        run: Callable[[Any], Any],
        consume: Callable[[testcases.TestCase, Any], Any],
        flavour: str,
    ) -> None:
        self.prism = prism
        self.family = prism.family
        self.coverage = coverage
        self.client = client
        self.run = run
        self.consume = consume
        self.flavour = flavour
        self.failures: list[str] = []

    def call(self, case: testcases.TestCase, headers: dict[str, str] | None) -> Any:
        method = getattr(getattr(self.client, case.resource_attr), case.op.py_name)
        args, kwargs = call_args(case, self.family)
        result = self.run(method(*args, **kwargs, extra_headers=headers, max_retries=0))
        return self.run(self.consume(case, result))

    def check_job(self, case: testcases.TestCase) -> None:
        """The ``<submit>_job`` helper: submits like the operation, then polls the status once."""
        job_ir = case.op.job
        assert job_ir is not None
        method = getattr(getattr(self.client, case.resource_attr), job_ir.method)
        args, kwargs = call_args(case, self.family)
        job = self.run(method(*args, **kwargs, max_retries=0))
        check_type(job.submitted, case.op.success.type, self.family)
        assert job.id, f"no job id in {job.submitted!r}"
        try:
            status = self.run(job.status())
        except JobExpiredError:
            # Prism's mocked `expiresAt` is any date-time, usually in the past: the handle is
            # right to refuse to poll then.
            return
        check_type(status, job_ir.status_type, self.family)

    def check_token_job(self, case: testcases.TestCase) -> None:
        """The ``<op>_job`` helper of ``x-cube-token-job``: starts like the operation (without
        the action and tokens it sets itself), then asks the status of the tokens once."""
        token_job = case.op.token_job
        assert token_job is not None
        method = getattr(getattr(self.client, case.resource_attr), token_job.method)
        args, kwargs = call_args(case, self.family)
        for own in (token_job.action_arg, token_job.tokens_arg):
            kwargs.pop(own, None)
        try:
            job = self.run(method(*args, **kwargs, max_retries=0))
        except APIError as exc:
            if "lists no job tokens" in str(exc):
                return  # Prism mocked an answer of another branch: the handle refuses it
            raise
        assert job.id and job.submitted.tokens, f"no tokens in {job.submitted!r}"
        status = self.run(job.status())
        assert isinstance(status.status, str) and isinstance(status.jobs, list)

    def run_case(self, case: testcases.TestCase) -> None:
        problems: list[str] = []
        offset = self.prism.log_size()
        try:
            check_result(case, self.call(case, None), self.family)
        except APIResponseValidationError as exc:
            if not prism_flags_its_answer(exc):
                problems.append(f"success call failed:\n{describe(exc)}")
        except Exception as exc:
            problems.append(f"success call failed:\n{describe(exc)}")
        if case.op.job is not None:
            try:
                self.check_job(case)
            except Exception as exc:
                problems.append(f"{case.op.job.method}() failed:\n{describe(exc)}")
        if case.op.token_job is not None:
            try:
                self.check_token_job(case)
            except Exception as exc:
                problems.append(f"{case.op.token_job.method}() failed:\n{describe(exc)}")
        for status in documented_errors(case):
            try:
                value = self.call(case, {"Prefer": f"code={status}"})
            except Exception as exc:
                problem = check_error(exc, status)
                if problem:
                    problems.append(f"Prefer: code={status}: {problem}")
            else:
                problems.append(
                    f"Prefer: code={status}: no exception, the call returned {value!r:.300}"
                )
        name = op_name(case)
        self.coverage.record(self.prism.key, name, not problems)
        if problems:
            self.failures.append(
                f"--- {name} ({case.op.method} {case.op.path}) [{self.flavour}]\n"
                + "\n".join(problems)
                + f"\nPrism log:\n{self.prism.log_since(offset)}"
            )

    def sweep(self) -> None:
        for case in self.family.cases:
            self.run_case(case)
        exposed = client_operations(self.client, self.family)
        self.coverage.register(self.prism.key, exposed)
        missing = sorted(exposed - {op_name(c) for c in self.family.cases})
        if missing:
            self.failures.append(f"client operations without a test case: {missing}")
        if self.failures:
            pytest.fail(
                f"{len(self.failures)} problem(s) for {self.family.name} against Prism "
                f"({self.prism.mode}, {self.flavour} client):\n\n" + "\n\n".join(self.failures),
                pytrace=False,
            )


def test_sync_client_against_prism(prism: PrismServer, coverage: Coverage) -> None:
    family = prism.family
    with family.client_class(**family.client_kwargs(prism.base_url)) as client:
        Sweep(prism, coverage, client, lambda value: value, consume_sync, "sync").sweep()


def awaiting(runner: asyncio.Runner) -> Callable[[Any], Any]:
    """Run anything awaitable to its value: a coroutine, or a paginator whose ``await`` gives
    the first page (``asyncio.Runner.run`` takes coroutines only)."""

    async def wait(awaitable: Any) -> Any:
        return await awaitable

    return lambda awaitable: runner.run(wait(awaitable))


def test_async_client_against_prism(prism: PrismServer, coverage: Coverage) -> None:
    family = prism.family
    with asyncio.Runner() as runner:  # one event loop: the client's connection pool lives on it
        client = family.async_client_class(**family.client_kwargs(prism.base_url))
        runner.run(client.__aenter__())
        try:
            Sweep(prism, coverage, client, awaiting(runner), consume_async, "async").sweep()
        finally:
            runner.run(client.__aexit__(None, None, None))


def test_prism_rejects_invalid_requests(prism: PrismServer) -> None:
    """Negative control: the sweeps mean something only if Prism validates what it receives."""
    family = prism.family
    secured = family.auth_param is not None
    with httpx2.Client(base_url=prism.base_url, timeout=30) as http:
        case = family.cases[0]
        if secured:
            anonymous = http.request(case.op.method, case.expected_path)
            assert anonymous.status_code == 401, (
                f"{case.op.method} {case.expected_path} without a credential: "
                f"{anonymous.status_code} {anonymous.text[:500]}"
            )
        bodied = next((c for c in family.cases if c.op.body and c.op.body.kind == "json"), None)
        if bodied is not None:
            headers = {"Authorization": "Bearer x" if secured else ""}
            wrong = http.request(
                bodied.op.method,
                bodied.expected_path,
                json=["not", "an", "object"],
                headers=headers,
            )
            assert wrong.status_code in (400, 422), (
                f"{bodied.op.method} {bodied.expected_path} with an array body: "
                f"{wrong.status_code} {wrong.text[:500]}"
            )
