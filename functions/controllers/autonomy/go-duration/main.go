// Command main prints what Go's time.ParseDuration answers for each string of a JSON
// array read on stdin: the table duration.test.ts compares parseGoDuration with, and
// test/cluster/go-duration.test.ts checks is still what Go answers.
//
//	go run main.go < inputs.json > table.json
//
// No module and no network: the standard library only.
package main

import (
	"encoding/json"
	"os"
	"strconv"
	"time"
)

// row is one input and Go's answer: the duration in nanoseconds, or its error text.
type row struct {
	Input       string  `json:"input"`
	Nanoseconds *string `json:"nanoseconds"`
	Error       *string `json:"error"`
}

func main() {
	var inputs []string
	if err := json.NewDecoder(os.Stdin).Decode(&inputs); err != nil {
		panic(err)
	}
	rows := make([]row, 0, len(inputs))
	for _, input := range inputs {
		d, err := time.ParseDuration(input)
		r := row{Input: input}
		if err != nil {
			text := err.Error()
			r.Error = &text
		} else {
			ns := strconv.FormatInt(int64(d), 10)
			r.Nanoseconds = &ns
		}
		rows = append(rows, r)
	}
	out := json.NewEncoder(os.Stdout)
	out.SetIndent("", "  ")
	out.SetEscapeHTML(false)
	if err := out.Encode(rows); err != nil {
		panic(err)
	}
}
