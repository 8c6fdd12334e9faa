/* The one csrf() of the admin's scripts (content's review.js, publishing's calendar.js): the
   token of the page's form ({% csrf_token %}), else Django's csrftoken cookie. */
(function () {
  "use strict";
  window.pfCsrf = function (scope) {
    var field = (scope || document).querySelector("input[name=csrfmiddlewaretoken]") ||
      document.querySelector("input[name=csrfmiddlewaretoken]");
    if (field) return field.value;
    var match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  };
})();
