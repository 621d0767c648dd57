package davtest

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The server stores a PUT under Root (creating folders), serves it back
// with GET and HEAD, answers 404 for what it does not have, and refuses
// connections once killed.
func TestServerStoresAndServes(t *testing.T) {
	s := Start(t)
	req, err := http.NewRequest(http.MethodPut, s.URL+"/cas/abc", bytes.NewReader([]byte("hello")))
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Contains(t, []int{http.StatusCreated, http.StatusNoContent}, resp.StatusCode)

	b, err := os.ReadFile(filepath.Join(s.Root, "cas", "abc"))
	require.NoError(t, err)
	require.Equal(t, "hello", string(b))

	resp, err = http.Get(s.URL + "/cas/abc")
	require.NoError(t, err)
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "hello", string(got))

	resp, err = http.Head(s.URL + "/cas/missing")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode)

	s.Kill()
	_, err = http.Get(s.URL + "/cas/abc")
	require.Error(t, err)
}
