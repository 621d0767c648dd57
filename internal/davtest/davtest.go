// Package davtest runs a real HTTP cache server for tests: Debian's nginx
// with its WebDAV module (PUT creates files, GET and HEAD serve them), the
// setup docs/build-integration.md recommends for a Bazel or meshcook remote
// cache, on a free loopback port. Only tests import it.
package davtest

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Server is one running nginx.
type Server struct {
	// URL is the server's base, http://127.0.0.1:PORT.
	URL string
	// Root is the folder it serves and stores into (URL/ac/x is
	// Root/ac/x).
	Root string

	dir string
	cmd *exec.Cmd
}

// conf is nginx.conf; %[1]s is the server's folder, %[2]d the port.
// `user root;` lets the workers write into a temp folder a test made;
// every path nginx would otherwise take from its build (logs, temp
// folders under /var/lib/nginx) points into the server's folder.
const conf = `daemon off;
master_process on;
user root;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log;
events { worker_connections 256; }
http {
  access_log %[1]s/access.log;
  client_body_temp_path %[1]s/tmp/body;
  proxy_temp_path %[1]s/tmp/proxy;
  fastcgi_temp_path %[1]s/tmp/fastcgi;
  uwsgi_temp_path %[1]s/tmp/uwsgi;
  scgi_temp_path %[1]s/tmp/scgi;
  client_max_body_size 0;
  server {
    listen 127.0.0.1:%[2]d;
    root %[1]s/root;
    location / {
      dav_methods PUT DELETE MKCOL;
      create_full_put_path on;
      dav_access user:rw group:r all:r;
    }
  }
}
`

// Start runs nginx for the test and stops it when the test ends. Without
// nginx the test is skipped, or fails under CI (env CI set), where .ci/run
// installs it.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		for _, p := range []string{"/usr/sbin/nginx", "/usr/local/sbin/nginx"} {
			if _, serr := os.Stat(p); serr == nil {
				bin, err = p, nil
				break
			}
		}
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("nginx not found (CI installs Debian's nginx): %v", err)
		}
		t.Skipf("nginx not found: %v", err)
	}
	var last error
	for range 5 { // a free port can be taken between probing and binding
		s, err := start(t, bin)
		if err == nil {
			t.Cleanup(s.Kill)
			return s
		}
		last = err
	}
	t.Fatalf("davtest: nginx did not start: %v", last)
	return nil
}

func start(t testing.TB, bin string) (*Server, error) {
	dir := t.TempDir()
	for _, d := range []string{"root", "tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	cf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(cf, []byte(fmt.Sprintf(conf, dir, port)), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "-p", dir, "-c", cf, "-e", filepath.Join(dir, "error.log"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // Kill ends the workers too
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{URL: fmt.Sprintf("http://127.0.0.1:%d", port), Root: filepath.Join(dir, "root"), dir: dir, cmd: cmd}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			return nil, fmt.Errorf("nginx exited (%v): %s", err, strings.TrimSpace(string(log)))
		default:
		}
		resp, err := http.Head(s.URL + "/")
		if err == nil {
			resp.Body.Close()
			return s, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.Kill()
	return nil, errors.New("nginx did not answer within 10 s")
}

// Kill stops nginx at once (SIGKILL to its process group: master and
// workers), as a crash would. Calling it again does nothing.
func (s *Server) Kill() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	s.cmd = nil
	// The port must refuse connections before Kill returns.
	for range 200 {
		c, err := net.DialTimeout("tcp", strings.TrimPrefix(s.URL, "http://"), 50*time.Millisecond)
		if err != nil {
			return
		}
		c.Close()
		time.Sleep(10 * time.Millisecond)
	}
}

// Log returns nginx's access log (one line per request).
func (s *Server) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "access.log"))
	return string(b)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
