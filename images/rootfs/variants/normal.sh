#!/bin/bash
# The normal image: nothing to change.
set -euo pipefail
