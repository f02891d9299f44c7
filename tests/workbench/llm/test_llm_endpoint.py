"""The endpoint client (``workbench.llm.endpoint``) against a tiny OpenAI-style server on 127.0.0.1
started by the tests: requests, replies, errors that name the fix, and the settings."""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from workbench.llm.endpoint import (
    OPENAI_BASE_URL,
    LlmSettings,
    chat,
    chat_from_env,
    settings_from_env,
)

MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi [S1]"}]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[dict] = []
        self.reply: tuple[int, bytes] = (200, b"{}")
        self.delay_s = 0.0


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        self.server.requests.append(
            {
                "path": self.path,
                "headers": dict(self.headers),
                "body": json.loads(self.rfile.read(length)),
            }
        )
        time.sleep(self.server.delay_s)
        status, body = self.server.reply
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout test)

    def log_message(self, *args):
        pass


@pytest.fixture()
def server():
    instance = _Server()
    thread = threading.Thread(target=instance.serve_forever, daemon=True)
    thread.start()
    yield instance
    instance.shutdown()
    instance.server_close()


def _settings(server, **kwargs) -> LlmSettings:
    return LlmSettings(f"http://127.0.0.1:{server.server_address[1]}/v1", "tiny-model", **kwargs)


def _completion(text: str) -> bytes:
    return json.dumps(
        {
            "id": "x",
            "object": "chat.completion",
            "model": "tiny-model-2024",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15},
        }
    ).encode()


def test_a_completion_is_sent_and_read(server):
    server.reply = (200, _completion("Install it with apt [S1]."))
    result = chat(MESSAGES, _settings(server, api_key="sk-test"))
    assert result.ok, result.error
    assert result.text == "Install it with apt [S1]."
    assert result.model == "tiny-model-2024"
    assert result.finish_reason == "stop"
    assert result.usage.total_tokens == 15
    request = server.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == "Bearer sk-test"
    assert request["body"] == {"model": "tiny-model", "messages": MESSAGES, "temperature": 0.0}


def test_no_key_means_no_authorization_header(server):
    server.reply = (200, _completion("ok"))
    assert chat(MESSAGES, _settings(server)).ok
    assert "Authorization" not in server.requests[0]["headers"]


def test_an_http_error_names_the_status_the_endpoint_message_and_the_fix(server):
    server.reply = (401, json.dumps({"error": {"message": "Incorrect API key provided"}}).encode())
    result = chat(MESSAGES, _settings(server))
    assert not result.ok
    assert "HTTP 401: Incorrect API key provided" in result.error
    assert "WORKBENCH_LLM_API_KEY" in result.error


def test_a_reply_that_is_not_a_chat_completion_is_reported(server):
    server.reply = (200, b"<html>hello</html>")
    result = chat(MESSAGES, _settings(server))
    assert not result.ok
    assert "did not answer with an OpenAI-style chat completion" in result.error
    assert "/v1" in result.error


def test_a_slow_endpoint_times_out_with_a_message(server):
    server.reply = (200, _completion("late"))
    server.delay_s = 1.0
    result = chat(MESSAGES, _settings(server, timeout_s=0.2))
    assert not result.ok
    assert "within 0.2 s" in result.error and "WORKBENCH_LLM_TIMEOUT" in result.error


def test_an_unreachable_endpoint_is_reported():
    with socket.socket() as probe:  # a port nobody listens on once closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = chat(MESSAGES, LlmSettings(f"http://127.0.0.1:{port}/v1", "m", timeout_s=2))
    assert not result.ok
    assert result.error.startswith(f"cannot reach http://127.0.0.1:{port}/v1/chat/completions")
    assert "WORKBENCH_LLM_BASE_URL" in result.error


def test_settings_from_the_environment():
    lookup = settings_from_env(
        {
            "WORKBENCH_LLM_BASE_URL": "http://localhost:11434/v1/",
            "WORKBENCH_LLM_MODEL": "llama",
            "WORKBENCH_LLM_API_KEY": "k",
            "WORKBENCH_LLM_TIMEOUT": "5",
        }
    )
    assert lookup.configured
    assert lookup.settings == LlmSettings("http://localhost:11434/v1/", "llama", "k", 5.0)
    assert lookup.settings.endpoint == "http://localhost:11434/v1/chat/completions"
    assert "api_key" not in repr(lookup.settings)  # the key never lands in logs or tracebacks


def test_openai_variables_are_accepted_and_a_key_alone_means_openai():
    lookup = settings_from_env({"OPENAI_API_KEY": "sk", "WORKBENCH_LLM_MODEL": "gpt-x"})
    assert lookup.settings.base_url == OPENAI_BASE_URL and lookup.settings.api_key == "sk"
    other = settings_from_env({"OPENAI_BASE_URL": "http://h/v1", "WORKBENCH_LLM_MODEL": "m"})
    assert other.settings.base_url == "http://h/v1"
    assert LlmSettings("http://h/v1/chat/completions", "m").endpoint == "http://h/v1/chat/completions"


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, "not configured: WORKBENCH_LLM_BASE_URL and WORKBENCH_LLM_MODEL missing; set WORKBENCH_LLM_BASE_URL"),
        ({"WORKBENCH_LLM_BASE_URL": "http://h/v1"}, "not configured: WORKBENCH_LLM_MODEL missing"),
        ({"WORKBENCH_LLM_BASE_URL": "ftp://h", "WORKBENCH_LLM_MODEL": "m"}, "is not an http(s) URL"),
        (
            {"WORKBENCH_LLM_BASE_URL": "http://h", "WORKBENCH_LLM_MODEL": "m", "WORKBENCH_LLM_TIMEOUT": "-1"},
            "WORKBENCH_LLM_TIMEOUT='-1' is not a positive number",
        ),
    ],
)
def test_missing_or_bad_settings_say_what_to_set(env, expected):
    lookup = settings_from_env(env)
    assert not lookup.configured
    assert expected in lookup.problem


def test_chat_from_env_without_settings_returns_the_problem():
    result = chat_from_env(MESSAGES, env={})
    assert not result.ok and result.error.startswith("not configured")


def test_an_error_that_echoes_the_api_key_never_carries_its_value(fake_llm):
    fake_llm.behaviour = "unauthorized"
    key = "sk-marker-0123456789abcdef"
    result = chat([{"role": "user", "content": "hi"}], LlmSettings(fake_llm.base_url, "fake-llm", key))
    assert fake_llm.calls[-1]["authorization"] == f"Bearer {key}"  # the key was sent...
    assert not result.ok and key not in result.error  # ...and the message the pages show does not hold it
    assert "answered HTTP 401: Incorrect API key provided: <API key>; check WORKBENCH_LLM_API_KEY" in result.error
