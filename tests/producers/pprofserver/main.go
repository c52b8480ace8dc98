// pprofserver: a Go program serving net/http/pprof on 127.0.0.1, the target of
// the fleet collector's tests (tests/fleet/test_fleet_collect.py).
//
// Usage: pprofserver [ADDR]   (default 127.0.0.1:0)
//
// It prints "listening HOST:PORT" once the listener is open, burns a little CPU
// in the background (so CPU profiles have samples), and registers a custom
// profile "fixed" whose content never changes (three entries added at start,
// from three call sites), so every fetch of /debug/pprof/fixed decodes to the
// same samples: the tests compare what the store gives back with it.
package main

import (
	"crypto/sha256"
	"fmt"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"runtime/pprof"
	"time"
)

var fixed = pprof.NewProfile("fixed")

type entry struct{ n int }

var entries []*entry

//go:noinline
func addA() { e := &entry{1}; entries = append(entries, e); fixed.Add(e, 0) }

//go:noinline
func addB() { e := &entry{2}; entries = append(entries, e); fixed.Add(e, 0) }

//go:noinline
func addC() { e := &entry{3}; entries = append(entries, e); fixed.Add(e, 0) }

//go:noinline
func spin() byte {
	h := sha256.New()
	buf := make([]byte, 4096)
	for i := 0; i < 200; i++ {
		buf[i] = byte(i)
		h.Write(buf)
	}
	return h.Sum(nil)[0]
}

func main() {
	addr := "127.0.0.1:0"
	if len(os.Args) > 1 {
		addr = os.Args[1]
	}
	addA()
	addB()
	addC()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("listening %s\n", ln.Addr())
	go func() {
		var sink byte
		for {
			sink ^= spin()
			time.Sleep(2 * time.Millisecond)
		}
	}()
	if err := http.Serve(ln, nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
