// CloudFront Function (viewer request) on the console behaviour: a path without a file extension is
// a route of the single-page console, answered with its index.html. Done per request here instead of
// with distribution-wide error pages, which would also turn the API's own 403/404 answers into HTML.
// biome-ignore lint/correctness/noUnusedVariables: CloudFront calls the function named handler; the file exports nothing
function handler(event) {
  var request = event.request;
  var lastSegment = request.uri.substring(request.uri.lastIndexOf('/') + 1);
  if (lastSegment.indexOf('.') === -1) {
    request.uri = '/index.html';
  }
  return request;
}
