/*
 * The window of __app_name__: plain JavaScript on the rata runtime (rata.live, rata.invoke), no build step.
 *
 * The list is a live query: rata delivers it again whenever a write may have changed it (this
 * window's, another window's, an agent's over MCP), so nothing here refreshes it by hand.
 */
(function () {
  "use strict";

  var $ = function (id) {
    return document.getElementById(id);
  };

  function showError(id, text) {
    $(id).textContent = text;
    $(id).hidden = false;
  }

  /* --- the list: tasks_list, live --- */

  function render(tasks) {
    $("list-error").hidden = true;
    var list = $("tasks");
    list.textContent = "";
    tasks.forEach(function (task) {
      var item = document.createElement("li");
      item.dataset.id = String(task.id);
      var title = document.createElement("span");
      title.textContent = task.title;
      var done = document.createElement("button");
      done.type = "button";
      done.textContent = "Done";
      done.setAttribute("aria-label", "Mark " + task.title + " done");
      done.addEventListener("click", function () {
        rata.invoke("tasks_done", {id: task.id}).catch(function (error) {
          showError("list-error", "Could not mark the task done: " + error.message);
        });
      });
      item.appendChild(title);
      item.appendChild(done);
      list.appendChild(item);
    });
    $("summary").textContent = tasks.length ? tasks.length + (tasks.length === 1 ? " task to do" : " tasks to do") : "Nothing to do.";
  }

  rata.live("tasks_list", {}, render, function (error) {
    showError("list-error", "Could not load the tasks: " + error.message);
  });

  /* --- the form: tasks_add --- */

  $("add-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var add = $("add");
    add.disabled = true;
    $("add-error").hidden = true;
    $("title").removeAttribute("aria-invalid");
    rata.invoke("tasks_add", {title: $("title").value})
      .then(function () {
        $("add-form").reset();
        $("title").focus();
      }, function (error) {
        var messages = error.fields && error.fields.title;
        showError("add-error", messages ? "The title " + messages.join("; ") + "." : error.message);
        $("title").setAttribute("aria-invalid", "true");
        $("title").focus();
      })
      .then(function () {
        add.disabled = false;
      });
  });
})();
