# The SDK differential test (issue 7): cardgate's reading of a few hundred generated cards against
# both real A2A SDKs' parsers (PyPI a2a-sdk via .ci/setup.sh core, npm @a2a-js/sdk from
# package.json). Fails on any capability cardgate grants that an SDK's parsed card lacks, and on
# any card it evaluates on another `version` than an SDK's parsed card holds (VERSION).
# Included by the top Makefile (SHELL=bash, CARGO, PY, TEST_TARGETS).
# SDK_PARITY_ARGS passes options to the driver, e.g. `--count 2000 --seed 3` or `--readings py,js_legacy`.
# A second run takes a seeded sample of gen_adv.py's adversarial classes (SDK_PARITY_ADV_ARGS;
# the long differential: `--corpus adv --mixed 10000 --seed N`, every class in full).
# The @a2a-js/sdk 1.0.1 readings (lowest of the npm package's peer range) come with `.ci/setup.sh core`.
# Another version of the range takes their place with `--second-sdk DIR` (an npm install of it under DIR).
# `--second-py PYTHON` adds a py2 reading and py2 picks from another interpreter's a2a-sdk (a venv
# with another a2a-sdk 1.x, or the lowest protobuf / packaging it allows). The three runs take it with
# SDK_PARITY_SECOND_PY, by default .tools/py-a2a-old (`.ci/setup.sh core`: a2a-sdk 1.0.0, protobuf
# 5.29.5, packaging 24.0, whose client picks by the old rule and folds Unicode in versions);
# SDK_PARITY_SECOND_PY= leaves it out.
# SDK_PARITY_SECOND_PY=tests/sdk_parity/py_pure.sh reads with a2a-sdk 1.3.0 on protobuf's pure-Python
# backend instead (PyPy's; upb is the default elsewhere), in the py2 reading and picks.
# Every run also takes the client-choice check (client_picks.py: each binding:X, alone and with each
# protocol:P, against the interface each real SDK's ClientFactory picks; fails on any binding cardgate
# grants that some client cannot connect to at P, or whose pick names a tenant it speaks v0.3 to): on every card of the first run, on a seeded sample
# of --picks-count cards of the adversarial one, and on a sample of gen_choice.py's interface lists
# (SDK_PARITY_CHOICE_ARGS; the long run: `--corpus choice --mixed 20000 --seed N`).
# A fourth run takes a seeded sample of gen_indep.py's independent corpus (classes written from the
# SDK sources, not from the other generators: truthiness and number spellings, isLegacyVersion,
# proto detection, the extended-card flag, the a2a-sdk interface builder, JS coercions, name and
# value look-alikes and escapes, bulk and depth, every protobuf field's types and spellings, random
# mixes) (SDK_PARITY_INDEP_ARGS; the long run: `--corpus indep --seed N`, every class in full).
# A fifth run (py_tenant.py, about 3 s) sends one message with a2a-sdk's own client for 152
# cards of tenants and versions and fails on any card cardgate grants whose request lacks the
# picked interface's tenant (its v0.3 transports send none).
# A sixth run (v03_picks.py, about 3 s) asks cardgate for each binding and flag with protocol:0.3
# alone on 800 generated cards whose v0.3 members and flags vary, against where the clients of
# a2a-sdk 0.3.26 and @a2a-js/sdk 0.3.14 (`.ci/setup.sh core`) send it and which flags they hold,
# and for protocol:0.3 itself whether their resolvers read the card; fails on a grant they send
# apart or do not hold, or a protocol:0.3 on a card either refuses (SDK_PARITY_V03_ARGS; the long run:
# `--count 20000 --seed N`).
# Added time on 2 cores: about 12 s (first run) + 4 s (adversarial sample) + 9 s (choice run);
# the py2 reading adds about 10 s (measured with --jobs 1: 0-1 s, 8 s, 2 s).

TEST_TARGETS += test-sdk-parity

SDK_PARITY_ARGS ?=
SDK_PARITY_ADV_ARGS ?= --count 4000 --mixed 500 --picks-count 800
SDK_PARITY_CHOICE_ARGS ?= --count 500
SDK_PARITY_INDEP_ARGS ?= --count 1500 --mixed 300 --picks-count 400 --seed 4
SDK_PARITY_V03_ARGS ?= --count 800
SDK_PARITY_SECOND_PY ?= .tools/py-a2a-old/bin/python
SDK_PARITY_PY2 = $(if $(SDK_PARITY_SECOND_PY),--second-py $(SDK_PARITY_SECOND_PY))

.PHONY: test-sdk-parity

test-sdk-parity: setup-core
	node js/npm-ci.mjs --need @a2a-js/sdk/package.json
	$(CARGO) build --release --bin cardgate
	$(PY) tests/sdk_parity/sdk_parity.py --cardgate target/release/cardgate $(SDK_PARITY_PY2) $(SDK_PARITY_ARGS)
	$(PY) tests/sdk_parity/sdk_parity.py --cardgate target/release/cardgate --corpus adv \
	  --out target/sdk_parity/adv/results.json --examples 5 $(SDK_PARITY_PY2) $(SDK_PARITY_ADV_ARGS)
	$(PY) tests/sdk_parity/sdk_parity.py --cardgate target/release/cardgate --corpus choice \
	  --out target/sdk_parity/choice/results.json --examples 5 $(SDK_PARITY_PY2) $(SDK_PARITY_CHOICE_ARGS)
	$(PY) tests/sdk_parity/sdk_parity.py --cardgate target/release/cardgate --corpus indep \
	  --out target/sdk_parity/indep/results.json --examples 5 $(SDK_PARITY_PY2) $(SDK_PARITY_INDEP_ARGS)
	$(PY) tests/sdk_parity/py_tenant.py --cardgate target/release/cardgate
	$(PY) tests/sdk_parity/v03_picks.py --cardgate target/release/cardgate $(SDK_PARITY_V03_ARGS)
