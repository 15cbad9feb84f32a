// A minimal OpenTelemetry Collector for the trace tests (tests/otel_collector.py): the collector's own OTLP receiver (HTTP and gRPC),
// every trace it receives appended to a file as one line of OTLP JSON.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/receiver/receivertest"
)

func main() {
	httpAddr := flag.String("http", "127.0.0.1:4318", "OTLP/HTTP endpoint")
	grpcAddr := flag.String("grpc", "127.0.0.1:4317", "OTLP/gRPC endpoint")
	out := flag.String("out", "traces.jsonl", "file the traces are appended to")
	flag.Parse()

	file, err := os.OpenFile(*out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var mu sync.Mutex
	marshaler := &ptrace.JSONMarshaler{}
	next, err := consumer.NewTraces(func(_ context.Context, td ptrace.Traces) error {
		line, err := marshaler.MarshalTraces(td)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		if _, err := file.Write(append(line, '\n')); err != nil {
			return err
		}
		return file.Sync()
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}

	factory := otlpreceiver.NewFactory()
	cfg := factory.CreateDefaultConfig()
	conf := confmap.NewFromStringMap(map[string]any{"protocols": map[string]any{
		"http": map[string]any{"endpoint": *httpAddr},
		"grpc": map[string]any{"endpoint": *grpcAddr},
	}})
	if err := conf.Unmarshal(cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx := context.Background()
	recv, err := factory.CreateTraces(ctx, receivertest.NewNopSettings(factory.Type()), cfg, next)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := recv.Start(ctx, componenttest.NewNopHost()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("ready")
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop
	_ = recv.Shutdown(ctx)
	_ = file.Close()
}
