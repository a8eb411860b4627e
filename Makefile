.PHONY: demo test check bench

demo:   ## run the payment-risk example on the embedded default
	./scripts/demo.sh

test:   ## the whole test suite (what CI runs)
	./scripts/test.sh

check:  ## gofmt, vet, tidy with a clean tree, and the tests
	./scripts/check.sh

bench:  ## B1 and B2, several runs, medians
	./scripts/bench.sh
