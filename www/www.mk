# The browser card inspector (www/). Included by the top Makefile (SHELL=bash, TEST_TARGETS);
# `pkg` and `setup-js` come from js/js.mk.
#   make www            build the package, assemble the site, serve it on http://127.0.0.1:$(WWW_PORT)/
#   make test-browser   drive the inspector in Debian's headless Chromium (playwright-core)

TEST_TARGETS += test-browser

WWW_PORT ?= 8000

.PHONY: www www-site setup-browser test-browser

# The site is www/ plus a copy of the package's browser build in www/pkg/web/ (gitignored).
www-site: pkg
	rm -rf www/pkg
	mkdir -p www/pkg
	cp -R pkg/web www/pkg/web

www: www-site
	node www/serve.mjs --port $(WWW_PORT)

setup-browser:
	.ci/setup.sh browser

# A static server on a free 127.0.0.1 port for the run, stopped afterwards whatever happens.
test-browser: www-site setup-browser
	@mkdir -p target
	@set -euo pipefail; \
	url_file=$$(mktemp); \
	node www/serve.mjs --port 0 --url-file "$$url_file" > target/www-server.log 2>&1 & \
	server=$$!; \
	trap 'kill $$server 2>/dev/null || true; rm -f "$$url_file"' EXIT; \
	for _ in $$(seq 1 100); do [ -s "$$url_file" ] && break; sleep 0.1; done; \
	if [ ! -s "$$url_file" ]; then echo "test-browser: the static server did not start" >&2; cat target/www-server.log >&2; exit 1; fi; \
	echo "test-browser: site at $$(cat "$$url_file")"; \
	CARDGATE_WWW_URL="$$(cat "$$url_file")" node --test --test-concurrency=1 tests/browser/*.test.mjs; \
	echo "test-browser: screenshots in target/screenshots/"
