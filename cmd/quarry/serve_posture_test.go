package main

import "testing"

// The attack: a keyless server reachable from the network (and from any web page through the
// operator's browser). Without a key the default address is loopback only.
func TestListenAddrKeylessDefaultsToLoopback(t *testing.T) {
	for _, tc := range []struct {
		explicit string
		keyed    bool
		want     string
		posture  posture
	}{
		{"", false, "127.0.0.1:8000", postureLoopback},
		{"", true, ":8000", postureKeyed},
		{":9000", false, ":9000", postureOpenKeyless},
		{"0.0.0.0:8000", false, "0.0.0.0:8000", postureOpenKeyless},
		{"[::]:8000", false, "[::]:8000", postureOpenKeyless},
		{"127.0.0.1:9000", false, "127.0.0.1:9000", postureLoopback},
		{"[::1]:9000", false, "[::1]:9000", postureLoopback},
		{"localhost:9000", false, "localhost:9000", postureLoopback},
		{"0.0.0.0:8000", true, "0.0.0.0:8000", postureKeyed},
	} {
		got, p := listenAddr(tc.explicit, tc.keyed)
		if got != tc.want || p != tc.posture {
			t.Errorf("listenAddr(%q, %v) = %q, %d; want %q, %d", tc.explicit, tc.keyed, got, p, tc.want, tc.posture)
		}
	}
}
