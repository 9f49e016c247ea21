package server

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Idle keep-alive connections cost nothing to hold and needed no key: one client opened 8,000
// (a health check each, then silence) and the server grew by 150 MB for the two minutes of
// IdleTimeout; at the process's open-file limit every accept, plugin start, database file and
// connector dial fails. Connections are now counted per client address (IPv6 per /64) and in
// all; one past either cap is answered 503 and closed.
func TestAttackIdleConnectionsCapped(t *testing.T) {
	srv := New(Config{MaxConnsPerAddr: 20, MaxConns: 30})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln, time.Second) }()
	defer func() { cancel(); <-done }()
	addr := ln.Addr().String()

	open := func(local string) (net.Conn, int) {
		t.Helper()
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}, Timeout: 5 * time.Second}
		c, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprintf(c, "GET /healthcheck HTTP/1.1\r\nHost: localhost\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return c, 0
		}
		resp.Body.Close()
		return c, resp.StatusCode
	}
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for i := 0; i < 20; i++ {
		c, code := open("127.0.0.1")
		held = append(held, c)
		if code != 200 {
			t.Fatalf("connection %d from one address: %d", i+1, code)
		}
	}
	c, code := open("127.0.0.1")
	c.Close()
	if code != http.StatusServiceUnavailable {
		t.Errorf("connection 21 from one address: %d, want 503", code)
	}
	// Another address still gets in, up to the total.
	for i := 0; i < 10; i++ {
		c, code := open("127.0.0.2")
		held = append(held, c)
		if code != 200 {
			t.Fatalf("connection %d from a second address: %d", i+1, code)
		}
	}
	c, code = open("127.0.0.3")
	c.Close()
	if code != http.StatusServiceUnavailable {
		t.Errorf("connection 31 in all: %d, want 503", code)
	}
	// Closed connections give their places back.
	for _, c := range held[:5] {
		c.Close()
	}
	held = held[5:]
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, code := open("127.0.0.1")
		held = append(held, c)
		if code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no place after 5 closed connections: %d", code)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestConnKey(t *testing.T) {
	for in, want := range map[string]string{
		"10.1.2.3:5": "10.1.2.3", "[2001:db8:1:2:3:4:5:6]:80": "2001:db8:1:2::/64", "[::ffff:10.1.2.3]:1": "10.1.2.3", "junk": "junk",
	} {
		if got := connKey(in); got != want {
			t.Errorf("connKey(%s) = %s, want %s", in, got, want)
		}
	}
	if !strings.Contains(connRefusal, "503") {
		t.Error(connRefusal)
	}
}
