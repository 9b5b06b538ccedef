"""Reads a JUnit XML file with junitparser (a real consumer) and prints what it saw as JSON.

Usage: junit_read.py REPORT.xml
Output: {"suites": [{"name", "tests", "failures", "skipped", "time", "properties": {..},
         "cases": [{"name", "classname", "time", "outcome", "message", "type", "text",
                    "file", "line", "system_out"}]}]}
"""
import json
import sys

from junitparser import Error, Failure, JUnitXml, Skipped

xml = JUnitXml.fromfile(sys.argv[1])
suites = []
for suite in xml:
    cases = []
    for case in suite:
        outcome, message, kind, text = "passed", None, None, None
        for result in case.result:
            if isinstance(result, Failure):
                outcome = "failure"
            elif isinstance(result, Skipped):
                outcome = "skipped"
            elif isinstance(result, Error):
                outcome = "error"
            message, kind, text = result.message, result.type, result.text
        cases.append({
            "name": case.name,
            "classname": case.classname,
            "time": case.time,
            "outcome": outcome,
            "message": message,
            "type": kind,
            "text": text,
            "file": case._elem.get("file"),
            "line": case._elem.get("line"),
            "system_out": case.system_out,
        })
    suites.append({
        "name": suite.name,
        "tests": suite.tests,
        "failures": suite.failures,
        "skipped": suite.skipped,
        "time": suite.time,
        "properties": {p.name: p.value for p in suite.properties()},
        "cases": cases,
    })
json.dump({"suites": suites}, sys.stdout)
