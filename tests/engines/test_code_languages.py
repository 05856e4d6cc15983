"""Symbols from tree-sitter in each of the 19 languages: qualified names, doc comments, lines.

Each case is a few lines of real-looking code written for this test, read by the real grammar
wheels; the expectations are the (qualname, kind, first line, last line) of chosen symbols and the
doc comment of one.
"""

from __future__ import annotations

import pytest

from engines.code.languages import LANGS, language_of
from engines.code.treesitter import parse_code

CASES = {
    "x.go": ('''package cobra

// Command is a command.
type Command struct {
	Use string
}

// Execute runs it.
func (c *Command) Execute() error {
	return nil
}

func ParseFlags(args []string) error { return nil }
''', [("Command", "class", 3, 6), ("Command.Execute", "method", 8, 11), ("ParseFlags", "function", 13, 13)],
        ("Command.Execute", "Execute runs it.")),
    "x.rs": ('''use std::fmt;

/// A point.
#[derive(Debug)]
pub struct Point { x: i32 }

impl Point {
    /// Makes one.
    pub fn new(x: i32) -> Self { Point { x } }
}
mod inner {
    pub fn helper() {}
}
''', [("Point", "class", 3, 5), ("Point.new", "method", 8, 9), ("inner.helper", "function", 12, 12)],
        ("Point.new", "Makes one.")),
    "x.ts": ('''import { z } from "zod";

/** A user service. */
export class UserService {
  /** Finds a user. */
  async find(id: string): Promise<User> { return db.get(id); }
}
export const handler = (req: Request) => { return 1; };
''', [("UserService", "class", 3, 7), ("UserService.find", "method", 5, 6), ("handler", "function", 8, 8)],
        ("UserService.find", "Finds a user.")),
    "x.tsx": ('''export function App(props: Props) {
  return <div>{props.name}</div>;
}
''', [("App", "function", 1, 3)], None),
    "x.js": ('''/**
 * Create an app.
 */
function createApplication() { return app; }
class Router {
  handle(req) { return 1; }
}
app.listen = function listen() {};
''', [("createApplication", "function", 1, 4), ("Router.handle", "method", 6, 6), ("app.listen", "function", 8, 8)],
        ("createApplication", "Create an app.")),
    "X.java": ('''package com.google.gson;

/**
 * Gson main class.
 */
public final class Gson {
  /** Serializes. */
  public String toJson(Object src) { return ""; }
}
''', [("Gson", "class", 3, 9), ("Gson.toJson", "method", 7, 8)], ("Gson", "Gson main class.")),
    "x.kt": ('''package kotlinx.coroutines

/** Launches a job. */
fun launch(block: () -> Unit): Job { return Job() }

class Job : Base() {
    fun cancel() {}
}
''', [("launch", "function", 3, 4), ("Job", "class", 6, 8), ("Job.cancel", "method", 7, 7)],
        ("launch", "Launches a job.")),
    "x.scala": ('''package cats

/** A functor. */
trait Functor[F[_]] {
  def map[A, B](fa: F[A])(f: A => B): F[B]
}
''', [("Functor", "class", 3, 6), ("Functor.map", "method", 5, 5)], ("Functor", "A functor.")),
    "x.c": ('''#include <stdio.h>

/**
 * Runs the loop.
 */
int uv_run(uv_loop_t* loop, int mode) {
  return 0;
}
#define MAX(a, b) ((a) > (b) ? (a) : (b))
''', [("uv_run", "function", 3, 8), ("MAX", "function", 9, 9)], ("uv_run", "Runs the loop.")),
    "x.cpp": ('''namespace fmt {
/// A buffer.
class buffer {
 public:
  void append(const char* s) { }
};
}
''', [("fmt.buffer", "class", 2, 6), ("fmt.buffer.append", "method", 5, 5)], ("fmt.buffer", "A buffer.")),
    "x.cs": ('''namespace Dapper
{
    /// <summary>Mapper.</summary>
    public static class SqlMapper
    {
        public static int Query(string sql) { return 0; }
    }
}
''', [("Dapper.SqlMapper", "class", 3, 7), ("Dapper.SqlMapper.Query", "method", 6, 6)],
        ("Dapper.SqlMapper", "Mapper.")),
    "x.php": ('''<?php
namespace Monolog;

/**
 * A logger.
 */
class Logger
{
    public function addRecord(int $level): bool { return true; }
}
''', [("Monolog.Logger", "class", 4, 10), ("Monolog.Logger.addRecord", "method", 9, 9)],
        ("Monolog.Logger", "A logger.")),
    "x.rb": ('''module Rack
  # A request.
  class Request
    # Parses the body.
    def parse_body(env)
      env
    end
  end
end
''', [("Rack", "class", 1, 9), ("Rack.Request", "class", 2, 8), ("Rack.Request.parse_body", "method", 4, 7)],
        ("Rack.Request.parse_body", "Parses the body.")),
    "x.swift": ('''/// A session.
open class Session {
    public func request(_ url: URL) -> DataRequest { return DataRequest() }
}
''', [("Session", "class", 1, 4), ("Session.request", "method", 3, 3)], ("Session", "A session.")),
    "x.lua": ('''local M = {}

--- Sets up the plugin.
function M.setup(opts)
  return opts
end

return M
''', [("M.setup", "function", 3, 6)], ("M.setup", "Sets up the plugin.")),
    "x.ex": ('''defmodule Phoenix.Router do
  @doc """
  Defines a scope.
  """
  def scope(path, opts) do
    path
  end
end
''', [("Phoenix.Router", "class", 1, 8), ("Phoenix.Router.scope", "method", 2, 7)],
        ("Phoenix.Router.scope", "Defines a scope.")),
    "x.hs": ('''module Data.Aeson where

-- | A value.
data Value = Object | Array

encode :: Value -> String
encode x = undefined
''', [("Value", "class", 3, 4), ("encode", "function", 6, 7)], ("Value", "A value.")),
    "x.zig": ('''const std = @import("std");

/// An allocator.
pub const Allocator = struct {
    pub fn alloc(self: Allocator, n: usize) ![]u8 {
        return undefined;
    }
};
''', [("Allocator", "class", 3, 8), ("Allocator.alloc", "method", 5, 7)], ("Allocator", "An allocator.")),
    "x.sh": ('''#!/usr/bin/env bash

# Installs a version.
nvm_install() {
  echo "$1"
}
nvm_install "$@"
''', [("nvm_install", "function", 3, 6)], ("nvm_install", "Installs a version.")),
    "x.py": ('''import os

class A:
    """Doc."""
    def m(self, x):
        return x
''', [("A", "class", 3, 6), ("A.m", "method", 5, 6)], ("A", "Doc.")),
}


def test_every_language_of_the_benchmark_has_a_case():
    assert {language_of(name).name for name in CASES} == {lang.name for lang in LANGS}


@pytest.mark.parametrize("name", sorted(CASES))
def test_symbols_have_qualified_names_lines_and_doc_comments(name):
    text, expected, doc = CASES[name]
    lang = language_of(name)
    symbols = parse_code(text, name, f"/x/{name}", "x", lang)
    got = {(s.qualname, s.kind, s.line, s.end_line) for s in symbols}
    assert set(expected) <= got, sorted(got)
    assert all(s.language == lang.name for s in symbols)
    assert len({s.id for s in symbols}) == len(symbols)
    if doc is not None:
        by_name = {s.qualname: s for s in symbols if s.kind != "module"}
        assert by_name[doc[0]].docstring == doc[1]


def test_a_class_leaves_its_methods_out_of_its_own_source():
    text = CASES["X.java"][0]
    symbols = {s.qualname: s for s in parse_code(text, "X.java", "/x/X.java", "X", language_of("X.java"))}
    assert "class Gson" in symbols["Gson"].source and "toJson" not in symbols["Gson"].source
    assert symbols["Gson.toJson"].signature == "(Object src)"


def test_lines_outside_symbols_are_module_chunks_cut_into_windows():
    body = "".join(f"echo step {i}\n" for i in range(120))
    symbols = parse_code("f() {\n  :\n}\n" + body, "run.sh", "/x/run.sh", "run", language_of("run.sh"))
    chunks = [s for s in symbols if s.kind == "module"]
    assert [(c.line, c.end_line) for c in chunks] == [(4, 53), (54, 103), (104, 123)]
    assert "echo step 0" in chunks[0].source and chunks[0].id != chunks[1].id


def test_a_file_that_does_not_fully_parse_still_yields_its_symbols():
    text = "package x\n\nfunc Good() int { return 1 }\n\nfunc Broken( {\n\nfunc Later() {}\n"
    names = {s.qualname for s in parse_code(text, "b.go", "/x/b.go", "b", language_of("b.go"))}
    assert "Good" in names


def test_a_long_symbol_is_cut_into_parts_found_at_their_own_lines():
    fields = "".join(f"  int field{i} = {i};\n" for i in range(250))
    text = "/** Many fields. */\nclass Big {\n" + fields + "  void run() { }\n}\n"
    symbols = parse_code(text, "Big.java", "/x/Big.java", "Big", language_of("Big.java"))
    parts = [s for s in symbols if s.qualname == "Big" and s.kind == "class"]
    assert [(p.line, p.end_line) for p in parts] == [(1, 100), (101, 200), (201, 254)]
    assert parts[0].docstring == "Many fields." and parts[0].id == "Big.java::Big"
    assert "field150 " in parts[1].source and parts[2].id == "Big.java::Big@201"
    assert any(s.qualname == "Big.run" and s.line == 253 for s in symbols)


def test_a_macro_before_a_namespace_does_not_swallow_the_namespace():
    text = "namespace absl {\nABSL_NAMESPACE_BEGIN\nnamespace internal {\n\nint f() { return 1; }\n}\nABSL_NAMESPACE_END\n}\n"
    symbols = parse_code(text, "x.cc", "/x/x.cc", "x", language_of("x.cc"))
    assert [(s.qualname, s.line) for s in symbols if s.kind != "module"] == [("absl.internal.f", 5)]


def test_a_jsdoc_block_counts_across_one_blank_line_and_csharp_references_keep_their_names():
    js = "'use strict';\n\n/**\n * Proxy to the router.\n */\n\napp.route = function route(path) {\n  return 1;\n};\n"
    symbols = {s.qualname: s for s in parse_code(js, "a.js", "/x/a.js", "a", language_of("a.js"))}
    assert symbols["app.route"].docstring == "Proxy to the router." and symbols["app.route"].line == 3
    licence = "/**\n * Copyright 2026.\n */\n\nfunction f() {}\n"
    symbols = {s.qualname: s for s in parse_code(licence, "b.js", "/x/b.js", "b", language_of("b.js"))}
    assert symbols["f"].docstring == "" and symbols["f"].line == 5
    cs = 'class J {\n    /// <summary>Reads the <see cref="XNode"/> back.</summary>\n    public void Read() { }\n}\n'
    symbols = {s.qualname: s for s in parse_code(cs, "J.cs", "/x/J.cs", "J", language_of("J.cs"))}
    assert symbols["J.Read"].docstring == "Reads the XNode back."


def test_a_long_python_class_is_cut_into_parts_as_the_other_languages():
    from engines.code.symbols import parse_symbols

    fields = "".join(f"    field{i}: int = {i}\n" for i in range(250))
    text = 'class Config:\n    """Settings."""\n' + fields + "\n    def run(self):\n        pass\n"
    symbols = parse_symbols(text, "c.py", "/x/c.py", "c")
    parts = [s for s in symbols if s.qualname == "Config"]
    assert [(p.line, p.end_line) for p in parts] == [(1, 100), (101, 200), (201, 253)]
    assert parts[0].docstring == "Settings." and parts[1].source.startswith("field98: int")
    assert any(s.qualname == "Config.run" and s.line == 254 for s in symbols)


@pytest.mark.parametrize("name,text", [
    ("nvm.sh", "#!/bin/sh\nexport NVM_DIR=1\n\nnvm() {\n  :\n}\n"),
    ("Big.java", "class Big {\n  void run() { }\n}\n"),
])
def test_ids_are_unique_when_a_symbol_is_named_as_its_file(name, text):
    symbols = parse_code(text, name, f"/x/{name}", name.split(".")[0], language_of(name))
    assert len({s.id for s in symbols}) == len(symbols) and len(symbols) >= 2


def test_haskell_equations_are_one_symbol_and_a_trailing_comment_is_no_doc():
    text = ("module M where\n\n-- | Renders.\nrender :: Inline -> Text\nrender (Quoted x) = q x  -- TODO?\n"
            "render (Emph x) = e x\nrender (Plain x) = x\n")
    symbols = [s for s in parse_code(text, "M.hs", "/x/M.hs", "M", language_of("M.hs")) if s.kind != "module"]
    assert [(s.qualname, s.line, s.end_line, s.docstring) for s in symbols] == [("render", 3, 7, "Renders.")]
