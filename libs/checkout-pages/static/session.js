// The checkout session page's only script (same origin, allowed by the page's CSP): the signed token
// travels in the URL fragment, which the browser never sends to the server; this moves it into a
// POST (with the page's CSRF token), the server keeps it in an HttpOnly cookie for this session's
// path and redirects to the page without a fragment.
(function () {
  var form = document.getElementById('open-session');
  if (!form) return;
  var token = window.location.hash.slice(1);
  form.elements.token.value = token;
  history.replaceState(null, '', window.location.pathname + window.location.search);
  form.submit();
})();
