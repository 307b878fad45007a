// veil-wpt's stand-in for WPT's /common/get-host-info.sub.js: the origins
// of this server. Both are secure contexts, so the HTTPS_ names carry the
// same origins as the plain ones. The OTHER_NOTSAMESITE names carry a
// third origin, cross-site to both, where the server has one (else the
// remote one); the other other-origin names carry the remote one.
'use strict';
function get_host_info() {
  const same = new URL('{{same}}');
  const remote = new URL('{{remote}}');
  const other = new URL('{{other}}');
  return {
    HTTP_PORT: same.port,
    HTTP_PORT2: remote.port,
    HTTPS_PORT: same.port,
    HTTPS_PORT2: remote.port,
    PROTOCOL: same.protocol,
    ORIGINAL_HOST: same.hostname,
    REMOTE_HOST: remote.hostname,
    NOTSAMESITE_HOST: remote.hostname,
    ORIGIN: same.origin,
    HTTP_ORIGIN: same.origin,
    HTTPS_ORIGIN: same.origin,
    HTTP_REMOTE_ORIGIN: remote.origin,
    HTTPS_REMOTE_ORIGIN: remote.origin,
    REMOTE_ORIGIN: remote.origin,
    OTHER_ORIGIN: remote.origin,
    HTTP_NOTSAMESITE_ORIGIN: remote.origin,
    HTTPS_NOTSAMESITE_ORIGIN: remote.origin,
    HTTP_OTHER_NOTSAMESITE_ORIGIN: other.origin,
    HTTPS_OTHER_NOTSAMESITE_ORIGIN: other.origin,
  };
}
function get_port(loc) {
  return loc.port || (loc.protocol === 'https:' ? '443' : '80');
}
