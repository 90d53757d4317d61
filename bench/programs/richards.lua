-- richards.lua -- a Richards-style operating-system simulation: a priority
-- scheduler, an idle task, a worker, two handlers and two devices passing
-- packets to each other.  Objects with metatables, method calls, linked
-- lists, small branches.
-- Usage: richards.lua [ITERATIONS]
local ITERATIONS = tonumber(arg and arg[1]) or 40

local IDLE, WORKER, HANDLER_A, HANDLER_B, DEVICE_A, DEVICE_B = 1, 2, 3, 4, 5, 6
local KIND_DEVICE, KIND_WORK = 0, 1
local DATA_SIZE = 4

-- ---- packets -----------------------------------------------------------

local Packet = {}
Packet.__index = Packet

function Packet.new(link, dest, kind)
  local data = {}
  for i = 1, DATA_SIZE do data[i] = 0 end
  return setmetatable({ link = link, dest = dest, kind = kind, datum = 1,
                        data = data }, Packet)
end

-- Append self at the end of the queue starting at `queue`; the new head.
function Packet:append_to(queue)
  self.link = nil
  if queue == nil then return self end
  local p = queue
  while p.link ~= nil do p = p.link end
  p.link = self
  return queue
end

-- ---- tasks -------------------------------------------------------------

local Task = {}
Task.__index = Task

-- waiting: the task starts waiting for a packet (a device does; the idle
-- task does not).
function Task.new(sched, id, priority, queue, behaviour, state, waiting)
  local t = setmetatable({ sched = sched, id = id, priority = priority,
                           queue = queue, behaviour = behaviour,
                           state = state, held = false,
                           waiting = waiting, next = nil }, Task)
  sched:add(t)
  return t
end

function Task:runnable()
  return not self.held and (self.queue ~= nil or not self.waiting)
end

-- A packet arrives for this task; the task to run next.
function Task:deliver(packet, from)
  if self.queue == nil then
    self.queue = packet
    if self.priority > from.priority and not self.held then return self end
  else
    self.queue = packet:append_to(self.queue)
  end
  return from
end

function Task:take_packet()
  local p = self.queue
  if p ~= nil and self.waiting then
    self.queue = p.link
    p.link = nil
    self.waiting = false
    return p
  end
  return nil
end

-- ---- the scheduler -----------------------------------------------------

local Scheduler = {}
Scheduler.__index = Scheduler

function Scheduler.new()
  return setmetatable({ list = nil, by_id = {}, current = nil,
                        queue_count = 0, hold_count = 0 }, Scheduler)
end

-- Keep the list sorted by descending priority.
function Scheduler:add(t)
  self.by_id[t.id] = t
  if self.list == nil or t.priority > self.list.priority then
    t.next = self.list
    self.list = t
    return
  end
  local p = self.list
  while p.next ~= nil and p.next.priority >= t.priority do p = p.next end
  t.next = p.next
  p.next = t
end

function Scheduler:wait()
  self.current.waiting = true
  return self.current
end

function Scheduler:hold_self()
  self.hold_count = self.hold_count + 1
  self.current.held = true
  return self.current.next
end

function Scheduler:release(id)
  local t = self.by_id[id]
  t.held = false
  if t.priority > self.current.priority then return t end
  return self.current
end

function Scheduler:send(packet)
  local t = self.by_id[packet.dest]
  self.queue_count = self.queue_count + 1
  packet.link = nil
  packet.dest = self.current.id
  return t:deliver(packet, self.current)
end

function Scheduler:run()
  local t = self.list
  while t ~= nil do
    if t:runnable() then
      self.current = t
      local packet = t:take_packet()
      t = t.behaviour(self, t.state, packet)
    else
      t = t.next
    end
  end
end

-- ---- behaviours: (scheduler, state, packet) -> next task -----------------

local function idle(s, st, _)
  st.count = st.count - 1
  if st.count == 0 then return s:hold_self() end
  if st.control % 2 == 0 then
    st.control = st.control // 2
    return s:release(DEVICE_A)
  end
  st.control = (st.control // 2) ~ 0xD008
  return s:release(DEVICE_B)
end

local function worker(s, st, packet)
  if packet == nil then return s:wait() end
  st.dest = st.dest == HANDLER_A and HANDLER_B or HANDLER_A
  packet.dest = st.dest
  packet.datum = 1
  for i = 1, DATA_SIZE do
    st.letter = st.letter + 1
    if st.letter > 26 then st.letter = 1 end
    packet.data[i] = st.letter
  end
  return s:send(packet)
end

local function handler(s, st, packet)
  if packet ~= nil then
    if packet.kind == KIND_WORK then st.work = packet:append_to(st.work)
    else st.devices = packet:append_to(st.devices) end
  end
  local work = st.work
  if work ~= nil then
    local count = work.datum
    if count > DATA_SIZE then
      st.work = work.link
      return s:send(work)
    end
    local dev = st.devices
    if dev ~= nil then
      st.devices = dev.link
      dev.datum = work.data[count]
      work.datum = count + 1
      return s:send(dev)
    end
  end
  return s:wait()
end

local function device(s, st, packet)
  if packet == nil then
    local p = st.pending
    if p == nil then return s:wait() end
    st.pending = nil
    return s:send(p)
  end
  st.pending = packet
  st.checksum = (st.checksum * 31 + packet.datum) % 1000003
  return s:hold_self()
end

-- ---- one run -----------------------------------------------------------

local function run_once(count)
  local s = Scheduler.new()
  Task.new(s, IDLE, 0, nil, idle, { count = count, control = 1 }, false)
  local wq = Packet.new(nil, WORKER, KIND_WORK)
  wq = Packet.new(wq, WORKER, KIND_WORK)
  Task.new(s, WORKER, 1000, wq, worker, { dest = HANDLER_B, letter = 0 }, true)
  local q = Packet.new(nil, DEVICE_A, KIND_DEVICE)
  q = Packet.new(q, DEVICE_A, KIND_DEVICE)
  q = Packet.new(q, DEVICE_A, KIND_DEVICE)
  Task.new(s, HANDLER_A, 2000, q, handler, {}, true)
  q = Packet.new(nil, DEVICE_B, KIND_DEVICE)
  q = Packet.new(q, DEVICE_B, KIND_DEVICE)
  q = Packet.new(q, DEVICE_B, KIND_DEVICE)
  Task.new(s, HANDLER_B, 3000, q, handler, {}, true)
  local da = { checksum = 0 }
  local db = { checksum = 0 }
  Task.new(s, DEVICE_A, 4000, nil, device, da, true)
  Task.new(s, DEVICE_B, 5000, nil, device, db, true)
  s:run()
  return s.queue_count, s.hold_count, da.checksum + db.checksum
end

local qc, hc, dc = 0, 0, 0
local tick = bench_tick  -- bench_host frames mode: a frame mark now and then
for _ = 1, ITERATIONS do
  if tick then tick() end
  local a, b, c = run_once(10000)
  qc, hc, dc = qc + a, hc + b, (dc + c) % 1000003
end
print(string.format("checksum %d %d %d", qc, hc, dc))
