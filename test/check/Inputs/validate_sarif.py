#!/usr/bin/env python3
"""Validates a SARIF log against the SARIF 2.1.0 schema; prints OK or the errors."""
import json
import os
import sys

import jsonschema

schema_path = os.path.join(os.path.dirname(__file__), "sarif-schema-2.1.0-rtm.5.json")
with open(schema_path) as f:
    schema = json.load(f)
with open(sys.argv[1]) as f:
    log = json.load(f)
validator = jsonschema.Draft4Validator(schema)
errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
for e in errors:
    print("invalid: /" + "/".join(str(p) for p in e.path) + ": " + e.message)
if errors:
    sys.exit(1)
print("OK: valid SARIF 2.1.0")
