// Package pluginv1 is version 1 of the gRPC contract between the Quarry plugin host and strategy
// plugins (strategy.proto). The Go files are generated; regenerate them with
//
//	go generate ./plugins/proto/...
//
// which needs protoc (Debian package protobuf-compiler) and the pinned generators:
//
//	go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
//	go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.5.1
package pluginv1

//go:generate protoc --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative strategy.proto
