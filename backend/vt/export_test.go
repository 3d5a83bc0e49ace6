package vt

// ReplayWithFollowers is replayWithFollowers, for the external tests
// (package vt_test, which may import packages that import vt, such as the
// classifier corpus's).
var ReplayWithFollowers = replayWithFollowers
