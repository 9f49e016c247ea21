package engine_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/quarrydocs/quarry/engine"
	_ "github.com/quarrydocs/quarry/formats/all"
	_ "github.com/quarrydocs/quarry/strategies/all"
)

// A Go program partitions a document from memory with the reference server's defaults.
func ExamplePartition() {
	data := []byte("Important points:\n\n- Hamburgers are delicious\n- Dogs are the best\n")
	opts := engine.DefaultOptions()
	opts.Languages = []string{"eng"}
	elems, err := engine.Partition(context.Background(), engine.NewDocument("notes.txt", data), opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range elems {
		fmt.Printf("%s: %s\n", e.Type, e.Text)
	}
	// Output:
	// Title: Important points:
	// ListItem: Hamburgers are delicious
	// ListItem: Dogs are the best
}

// Errors carry a Kind (the API's status: KindUnsupported is a 400) and the reference's detail text.
func ExamplePartition_error() {
	_, err := engine.Partition(context.Background(), engine.NewDocument("blob.bin", []byte{0x00, 0x01, 0x02, 0xff}), engine.DefaultOptions())
	var e *engine.Error
	if errors.As(err, &e) && e.Kind == engine.KindUnsupported {
		fmt.Println("unsupported:", e.Msg)
	}
	// Output:
	// unsupported: File type application/octet-stream is not supported.
}
