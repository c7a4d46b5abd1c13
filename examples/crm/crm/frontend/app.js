/*
 * The crm frontend: plain JS on the rata runtime (rata.invoke, rata.live, rata.on), no build step.
 *
 * The list is a live query: it is re-delivered whenever a write may have changed it, from this
 * window, another one, or an agent over MCP, so nothing here refreshes by hand after a change.
 */
(function () {
  "use strict";

  var $ = function (id) {
    return document.getElementById(id);
  };
  var stopWatching = null;
  var searchTimer = null;
  var bannerTimer = null;
  var pendingDelete = null;

  /* --- the list --- */

  function render(customers) {
    $("list-error").hidden = true;
    var rows = $("rows");
    rows.textContent = "";
    customers.forEach(function (customer) {
      var row = document.createElement("tr");
      row.dataset.id = String(customer.id);
      [customer.name, customer.email, customer.created_at.slice(0, 10)].forEach(function (text) {
        var cell = document.createElement("td");
        cell.textContent = text;
        row.appendChild(cell);
      });
      var actions = document.createElement("td");
      var remove = document.createElement("button");
      remove.type = "button";
      remove.className = "link danger";
      remove.textContent = "Delete";
      remove.setAttribute("aria-label", "Delete " + customer.name);
      remove.addEventListener("click", function () {
        askDelete(customer);
      });
      actions.appendChild(remove);
      row.appendChild(actions);
      rows.appendChild(row);
    });
    var search = $("search").value.trim();
    if (customers.length) {
      $("summary").textContent = customers.length + (customers.length === 1 ? " customer" : " customers") + (search ? " matching \"" + search + "\"" : "");
    } else {
      $("summary").textContent = search ? "No customer matches \"" + search + "\"." : "No customers yet.";
    }
  }

  function listFailed(error) {
    $("list-error").textContent = "Could not load customers: " + error.message;
    $("list-error").hidden = false;
  }

  function watch(search) {
    if (stopWatching) {
      stopWatching();
    }
    stopWatching = rata.live("customers_index", {search: search}, render, listFailed);
  }

  $("search").addEventListener("input", function () {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(function () {
      watch($("search").value.trim());
    }, 150);
  });
  $("search-form").addEventListener("submit", function (event) {
    event.preventDefault();
    clearTimeout(searchTimer);
    watch($("search").value.trim());
  });

  /* --- new customer --- */

  var fields = ["name", "email"];

  function clearErrors() {
    $("new-error").hidden = true;
    fields.forEach(function (field) {
      $("new-" + field).removeAttribute("aria-invalid");
      $("new-" + field + "-error").textContent = "";
    });
  }

  function showErrors(error) {
    var shown = false;
    var first = null;
    fields.forEach(function (field) {
      var messages = error.fields && error.fields[field];
      if (messages && messages.length) {
        var label = field.charAt(0).toUpperCase() + field.slice(1);
        $("new-" + field).setAttribute("aria-invalid", "true");
        $("new-" + field + "-error").textContent = label + " " + messages.join("; ");
        first = first || $("new-" + field);
        shown = true;
      }
    });
    if (!shown) {
      $("new-error").textContent = error.message;
      $("new-error").hidden = false;
    }
    if (first) {
      first.focus();
    }
  }

  $("new-customer").addEventListener("click", function () {
    $("new-form").reset();
    clearErrors();
    $("new-dialog").showModal();
    $("new-name").focus();
  });
  $("new-cancel").addEventListener("click", function () {
    $("new-dialog").close();
  });
  $("new-form").addEventListener("submit", function (event) {
    event.preventDefault();
    clearErrors();
    var save = $("new-save");
    save.disabled = true;
    rata.invoke("customers_store", {name: $("new-name").value, email: $("new-email").value.trim()})
      .then(function () {
        $("new-dialog").close();
        $("new-customer").focus();
      }, showErrors)
      .then(function () {
        save.disabled = false;
      });
  });

  /* --- delete, with a confirm step --- */

  function askDelete(customer) {
    pendingDelete = customer;
    $("delete-question").textContent = "Delete " + customer.name + " (" + customer.email + ")? This cannot be undone.";
    $("delete-error").hidden = true;
    $("delete-dialog").showModal();
    $("delete-cancel").focus();
  }

  $("delete-cancel").addEventListener("click", function () {
    $("delete-dialog").close();
  });
  $("delete-dialog").addEventListener("close", function () {
    // "close" arrives as a task of its own: if the dialog was opened again meanwhile
    // (cancel, then Delete again, quickly), it is asking about a customer still.
    if (!$("delete-dialog").open) {
      pendingDelete = null;
    }
  });
  $("delete-confirm").addEventListener("click", function () {
    if (!pendingDelete) {
      return;
    }
    var confirm = $("delete-confirm");
    confirm.disabled = true;
    rata.invoke("customers_delete", {id: pendingDelete.id})
      .then(function () {
        $("delete-dialog").close();
      }, function (error) {
        $("delete-error").textContent = "Could not delete: " + error.message;
        $("delete-error").hidden = false;
      })
      .then(function () {
        confirm.disabled = false;
      });
  });

  /* --- what agents do, as it happens --- */

  rata.on("rata:mcp", function (message) {
    if (!message || message.type !== "agent_called") {
      return;
    }
    var banner = $("agent-banner");
    banner.textContent = "An agent called " + message.tool + (message.ok ? "" : " (it did not succeed: " + message.outcome + ")");
    banner.hidden = false;
    clearTimeout(bannerTimer);
    bannerTimer = setTimeout(function () {
      banner.hidden = true;
    }, 8000);
  });

  watch("");
})();
