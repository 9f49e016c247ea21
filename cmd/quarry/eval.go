package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/metrics"
)

func runEval(args []string, stdout io.Writer) error {
	if len(args) != 2 {
		return usageError("eval: give an output and a golden to score it against: quarry eval OUTPUT.json GOLD.json|GOLD.txt")
	}
	out, err := readElements(args[0])
	if err != nil {
		return err
	}
	outCCT := metrics.CCT(out)
	var goldCCT string
	var gold []element.Element
	if strings.HasSuffix(args[1], ".txt") {
		b, err := os.ReadFile(args[1])
		if err != nil {
			return fmt.Errorf("eval: %s: %w", args[1], fileError(err))
		}
		goldCCT = string(b)
	} else {
		if gold, err = readElements(args[1]); err != nil {
			return err
		}
		goldCCT = metrics.CCT(gold)
	}
	fmt.Fprintf(stdout, "cct-accuracy\t%.3f\n", metrics.BatchAccuracy(outCCT, goldCCT))
	fmt.Fprintf(stdout, "cct-%%missing\t%.3f\n", metrics.PercentMissing(outCCT, goldCCT))
	if gold != nil {
		fmt.Fprintf(stdout, "element-type-accuracy\t%.3f\n", metrics.Round3(metrics.TypeAccuracy(out, gold)))
	}
	return nil
}

func readElements(path string) ([]element.Element, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("eval: %s: %w", path, fileError(err))
	}
	var elems []element.Element
	if err := json.Unmarshal(b, &elems); err != nil {
		return nil, fmt.Errorf("%s is not a JSON list of elements (what quarry partition writes for one document): %w", path, err)
	}
	return elems, nil
}
