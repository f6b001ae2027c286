-- Drives Neovim (0.7 and later) through one editing session of workflow.lobster with the lobster language server,
-- as a user would: every step waits on the editor's state (vim.wait polls a condition; the deadline is a failsafe),
-- and what the editor showed is written as JSON to $LOBSTER_EDITOR_REPORT for the test to check.
local report, buf = { steps = {} }, vim.api.nvim_get_current_buf()
local deadline_ms = tonumber(vim.env.LOBSTER_EDITOR_DEADLINE_MS or "60000")
local notified = {}
local notify = vim.notify
vim.notify = function(message, level, opts)
  table.insert(notified, tostring(message))
  return notify(message, level, opts)
end

local function finish()
  local file = assert(io.open(vim.env.LOBSTER_EDITOR_REPORT, "w"))
  file:write(vim.fn.json_encode(report))
  file:close()
  vim.cmd("qall!")
end

local function wait(what, condition)
  if not vim.wait(deadline_ms, condition, 20) then
    error("timed out waiting for " .. what)
  end
end

local function client()
  local found = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = buf }) or vim.lsp.buf_get_clients(buf)
  local _, first = next(found)
  return first
end

local function codes()
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    found[#found + 1] = tostring(code)
  end
  table.sort(found)
  return found
end

local function has(code)
  return vim.tbl_contains(codes(), code)
end

local function text()
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
end

local function cursor_on(needle, shift)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  for row, line in ipairs(lines) do
    local col = line:find(needle, 1, true)
    if col then
      vim.api.nvim_win_set_cursor(0, { row, col - 1 + (shift or 0) })
      return
    end
  end
  error("not in the buffer: " .. needle)
end

local function position_params()
  local c = client()
  if vim.fn.has("nvim-0.10") == 1 then
    return vim.lsp.util.make_position_params(0, c.offset_encoding)
  end
  return vim.lsp.util.make_position_params()
end

local function floating_text()
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= "" then
      return table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false), "\n"), win
    end
  end
end

local function step(name, value)
  report.steps[#report.steps + 1] = name
  report[name] = value
end

local function session()
  -- open: the server starts and checks the file (shellcheck runs: the file is saved)
  wait("the language server to attach", function() return client() ~= nil and client().initialized ~= false end)
  report.server = client().name
  report.encoding = client().offset_encoding
  local key_row = vim.fn.search("^steps:", "n")
  report.highlight = { syntax = vim.bo[buf].syntax, steps_key = vim.fn.synIDattr(vim.fn.synID(key_row, 1, 1), "name") }
  report.nvim = tostring(vim.version().major) .. "." .. tostring(vim.version().minor) .. "." .. tostring(vim.version().patch)
  wait("diagnostics on open (L310, L201)", function() return has("L310") and has("L201") end)
  step("opened", codes())

  -- edit: a typo'd ${arg}; unsaved text is not shellchecked
  local count_line = vim.fn.search("run: echo", "n")
  vim.api.nvim_buf_set_lines(buf, count_line, count_line, false, { '    env: {WHO: "${nme}"}' })
  wait("diagnostics after the edit (L105, no L310)", function() return has("L105") and not has("L310") end)
  step("edited", codes())

  -- save: shellcheck runs again and its finding returns
  vim.cmd("write")
  wait("the shellcheck finding after :write", function() return has("L310") and has("L105") end)
  step("saved", codes())

  -- hover on a pipeline command
  cursor_on("exec --json", 1)
  vim.lsp.buf.hover()
  wait("the hover window", function() return floating_text() ~= nil end)
  local hover, hover_win = floating_text()
  step("hover", hover)
  vim.api.nvim_win_close(hover_win, true)

  -- go to definition: from the reference $count.json to the step id
  cursor_on("id: count", 4)
  local defined_at = vim.api.nvim_win_get_cursor(0)[1]
  cursor_on("$count.json", 2)
  vim.lsp.buf.definition()
  wait("the jump to the definition", function() return vim.api.nvim_win_get_cursor(0)[1] == defined_at end)
  step("definition", vim.api.nvim_win_get_cursor(0))

  -- completion after `$` in stdin: (the client's request, as its completion menu sends it)
  cursor_on("$count.json", 1)
  local answers = vim.lsp.buf_request_sync(buf, "textDocument/completion", position_params(), deadline_ms)
  local labels = {}
  for _, answer in pairs(answers or {}) do
    for _, item in ipairs((answer.result or {}).items or answer.result or {}) do
      labels[#labels + 1] = item.label
    end
  end
  step("completion", labels)

  -- the quick fix of "did you mean `pick`?"
  cursor_on("pikc", 1)
  local wanted = "Change `pikc` to `pick`"
  if vim.fn.has("nvim-0.8") == 1 then
    vim.lsp.buf.code_action({ apply = true, filter = function(action) return action.title == wanted end })
  else
    local params = vim.lsp.util.make_range_params()
    params.context = { diagnostics = vim.lsp.diagnostic.get_line_diagnostics(buf) }
    for _, answer in pairs(vim.lsp.buf_request_sync(buf, "textDocument/codeAction", params, deadline_ms) or {}) do
      for _, action in ipairs(answer.result or {}) do
        if action.title == wanted then vim.lsp.util.apply_workspace_edit(action.edit, client().offset_encoding) end
      end
    end
  end
  wait("the quick fix to apply", function() return text():find("| pick a", 1, true) ~= nil end)
  step("code_action", text())

  -- rename: refused to a taken name (the buffer stays), then done
  cursor_on("id: count", 4)
  if vim.fn.has("nvim-0.8") == 1 then  -- Neovim 0.7 drops the error of a rename without a word
    local before, shown = text(), #notified
    vim.lsp.buf.rename("greet")
    wait("the refusal to be shown", function() return #notified > shown end)
    step("refused_rename", { unchanged = text() == before, message = notified[#notified] })
  end
  vim.lsp.buf.rename("tally")
  wait("the rename to apply", function() return text():find("$tally.json", 1, true) ~= nil end)
  step("rename", text())

  -- format the document
  if vim.lsp.buf.format then
    vim.lsp.buf.format({ async = false, timeout_ms = deadline_ms })
  else
    vim.lsp.buf.formatting_sync(nil, deadline_ms)
  end
  step("formatted", text())

end

local ok, problem = pcall(session)
if not ok then
  report.error = tostring(problem)
end
report.log = vim.lsp.get_log_path()
finish()
