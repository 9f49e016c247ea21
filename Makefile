# Quarry — the two commands a newcomer needs:
#   make run    install what running needs, build, partition a sample document, start the service
#               (make run ADDR=127.0.0.1:9000 to listen elsewhere)
#   make test   install what the tests need too and run every check and test
GO      ?= go
GOBIN   := $(shell $(GO) env GOPATH)/bin
export PATH := $(GOBIN):$(PATH)
SAMPLE  ?= testdata/reference/docs/fake-text.txt
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)

ADDR    ?=

PREFIX  ?= $(HOME)/.local

.PHONY: run test deps deps-run build install check unit bench

# deps-run installs what building and running need; deps adds the test-only tools (PostgreSQL,
# Chromium, pdfminer, staticcheck, the npm test packages).
deps-run:
	@scripts/deps.sh run

deps:
	@scripts/deps.sh test

# quarry itself is pure Go; the OCR strategies (hi_res, ocr_only, cgo) and vlm (the model
# providers' SDKs) are plugins installed beside it with their checksums, where the plugin host
# finds them.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags="-s -w -X main.version=$(VERSION)" -o bin/quarry ./cmd/quarry
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags="-s -w" -o bin/quarry-plugin-vlm ./cmd/quarry-plugin-vlm
	CGO_ENABLED=1 $(GO) build -o bin/quarry-plugin-ocr ./cmd/quarry-plugin-ocr
	bin/quarry plugin checksum bin/quarry-plugin-ocr bin/quarry-plugin-vlm

# install puts quarry and its plugins (with their checksums, which the plugin host checks) in
# $(PREFIX)/bin, so `quarry` works from anywhere when that folder is on the PATH.
install: build
	install -d $(PREFIX)/bin
	install -m 755 bin/quarry bin/quarry-plugin-ocr bin/quarry-plugin-vlm $(PREFIX)/bin/
	install -m 644 bin/quarry-plugin-ocr.sha256 bin/quarry-plugin-vlm.sha256 $(PREFIX)/bin/

run: deps-run build
	bin/quarry partition $(SAMPLE)
	bin/quarry serve $(if $(ADDR),--addr $(ADDR))

# check also vets the tree as built for Windows and macOS: the library is meant to embed
# there, so a Linux-only call outside a build-tagged file is caught here.
check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	GOOS=windows $(GO) vet ./...
	GOOS=darwin $(GO) vet ./...
	staticcheck ./...

# The platform store and job tests also run against a throwaway PostgreSQL cluster. The OCR
# strategies' layout and table code (strategies/ocr/internal/scan) must build and pass without
# cgo too: only the Tesseract binding beside it needs a C compiler.
unit:
	CGO_ENABLED=0 $(GO) test -count=1 ./strategies/ocr/internal/scan
	QUARRY_TEST_POSTGRES="$$(scripts/postgres.sh start)"; export QUARRY_TEST_POSTGRES; \
	$(GO) test -count=1 -timeout 30m ./...; rc=$$?; scripts/postgres.sh stop; exit $$rc

test: deps check unit

bench:
	$(GO) test -run '^$$' -bench . -benchtime 3x ./bench/...
