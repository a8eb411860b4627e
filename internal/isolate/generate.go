package isolate

//go:generate sh -c "for f in testdata/*.wat; do wat2wasm $DOLLAR{f} -o $DOLLAR{f%.wat}.wasm; done"
