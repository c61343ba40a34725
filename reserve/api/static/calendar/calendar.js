/* The calendar page of reserve: draws GET /v1/calendar (microversion 1.5)
 * of a flavor or a host as a Gantt chart, and books a free stretch with
 * the API's own POST /v1/reservations. A refusal's counter offer (1.6)
 * is shown as buttons that fill the form with each window offered. No
 * framework, no build step.
 *
 * The token: none on an API without authentication (the all-in-one);
 * else the one a dashboard that embeds the page hands over (the URL's
 * #token=... or a postMessage {type: "reserve-token", token}), or the one
 * typed in when the API answers 401. It is kept for the browser tab only
 * (sessionStorage).
 */
(function () {
  'use strict';

  // The counter offer's (COUNTER_OFFER of reserve.api.microversion).
  var VERSION = 'reserve 1.6';
  var DAY = 24 * 3600 * 1000;
  var TOKEN_KEY = 'reserve-token';
  var api = window.location.origin;

  // offered: the window of the counter offer last put in the form, kept
  // to the second (the form's inputs show minutes).
  var state = {view: 'flavor', subject: null, days: 7, start: null,
               calendar: null, subjects: [], offered: null};

  function $(id) { return document.getElementById(id); }

  // -- the API ------------------------------------------------------------

  function token() { return window.sessionStorage.getItem(TOKEN_KEY); }

  function takeTokenFromHash() {
    var match = /(?:^#|&)token=([^&]+)/.exec(window.location.hash);
    if (match) {
      window.sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(match[1]));
      history.replaceState(null, '', window.location.pathname +
                           window.location.search);
    }
  }

  function ApiError(status, detail, counterOffer) {
    this.status = status;
    this.detail = detail;
    this.counterOffer = counterOffer || null;
  }

  function call(method, path, body) {
    var headers = {'OpenStack-API-Version': VERSION,
                   'Accept': 'application/json'};
    if (token()) { headers['X-Auth-Token'] = token(); }
    if (body !== undefined) { headers['Content-Type'] = 'application/json'; }
    return fetch(api + path, {
      method: method, headers: headers,
      body: body === undefined ? undefined : JSON.stringify(body)
    }).then(function (response) {
      return response.text().then(function (text) {
        var json = null;
        try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
        if (response.ok) { return json; }
        var detail = (json && json.errors && json.errors[0] &&
                      json.errors[0].detail) || (response.status + ' ' +
                                                 response.statusText);
        if (response.status === 401) { askToken(); }
        throw new ApiError(response.status, detail,
                           json && json.errors && json.errors[0] &&
                           json.errors[0].counter_offer);
      });
    }, function (error) {
      throw new ApiError(0, 'The reserve API did not answer (' + error + ')');
    });
  }

  function say(text, info) {
    var message = $('message');
    message.textContent = text || '';
    message.className = info ? 'info' : '';
  }

  function askToken() {
    $('token-box').hidden = false;
    $('token').focus();
  }

  // -- time ---------------------------------------------------------------

  function parse(iso) { return Date.parse(iso); }

  function iso(ms) {
    return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  function human(ms) {
    return new Date(ms).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
  }

  function toInput(ms) { return new Date(ms).toISOString().slice(0, 16); }

  function fromInput(value) { return Date.parse(value + ':00Z'); }

  function alignedStart(ms, days) {
    var d = new Date(ms);
    d.setUTCHours(0, 0, 0, 0);
    // A day and a week begin today (a week is the seven days ahead, as
    // in the terminal's timeline: on a Sunday, a week from Monday would
    // show what is past); a month begins on its first.
    if (days === 31) {
      d.setUTCDate(1);
    }
    return d.getTime();
  }

  function rangeEnd() {
    if (state.days === 31) {
      var d = new Date(state.start);
      d.setUTCMonth(d.getUTCMonth() + 1);
      return d.getTime();
    }
    return state.start + state.days * DAY;
  }

  // -- what to show -------------------------------------------------------

  function loadSubjects() {
    var path = state.view === 'flavor' ? '/v1/flavors' : '/v1/hosts';
    return call('GET', path).then(function (body) {
      var items = body.flavors || body.hosts || [];
      state.subjects = items.filter(function (item) { return !item.spot; });
      var select = $('subject');
      select.textContent = '';
      state.subjects.forEach(function (item) {
        var option = document.createElement('option');
        option.value = item.id;
        option.textContent = item.name;
        select.appendChild(option);
      });
      var wanted = new URLSearchParams(window.location.search).get(
        state.view);
      var found = state.subjects.filter(function (item) {
        return item.id === wanted || item.name === wanted;
      })[0];
      state.subject = found ? found.id :
        (state.subjects[0] && state.subjects[0].id);
      select.value = state.subject || '';
      if (!state.subject) {
        say(state.view === 'flavor' ? 'The catalogue has no flavor to show.'
            : 'No host is enrolled.', true);
      }
    });
  }

  function load() {
    if (!state.subject) { draw(null); return Promise.resolve(); }
    var end = rangeEnd();
    $('period').textContent = human(state.start) + ' to ' + human(end);
    var query = new URLSearchParams();
    query.set(state.view + '_id', state.subject);
    query.set('start', iso(state.start));
    query.set('end', iso(end));
    return call('GET', '/v1/calendar?' + query).then(function (body) {
      state.calendar = body.calendar;
      say('');
      draw(body.calendar);
    }, function (error) { say(error.detail); });
  }

  // -- drawing ------------------------------------------------------------

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function place(node, from, to, cal) {
    var start = parse(cal.start), span = parse(cal.end) - start;
    var left = Math.max(0, (from - start) / span * 100);
    var right = Math.min(100, (to - start) / span * 100);
    node.style.left = left + '%';
    node.style.width = Math.max(0, right - left) + '%';
    return right > 0 && left < 100 && right > left;
  }

  var STYLES = {
    own: {ACTIVE: 'own-active', ALLOCATED: 'own-waiting',
          PENDING_CREATE: 'own-waiting', PENDING: 'own-waiting',
          COMPLETE: 'own-ended', EXPIRED: 'own-ended', ERROR: 'own-error',
          NEEDS_REVIEW: 'own-error',
          // A reservation on standby holds nothing and is not drawn; in
          // case one ever is: still to come, or ended.
          STANDBY: 'own-waiting', LAPSED: 'own-ended'}
  };

  function styleOf(bar) {
    if (bar.kind === 'maintenance') { return 'maintenance'; }
    // Another project's, whether as "busy" or, to an administrator,
    // with its status.
    if (!bar.own) { return 'busy'; }
    return STYLES.own[bar.status] || 'own-waiting';
  }

  function words(bar) {
    if (bar.kind === 'maintenance') {
      return 'Maintenance' + (bar.note ? ': ' + bar.note : '');
    }
    if (bar.status === 'busy') { return 'Busy (another project)'; }
    var who = bar.own ? 'yours' : (bar.project_id || 'another project');
    return bar.status + ', ' + who + (bar.count > 1 ?
                                      ', ' + bar.count + ' at once' : '');
  }

  function axis(cal) {
    var row = el('div', 'row axis');
    row.setAttribute('role', 'row');
    var label = el('div', 'row-label', state.view === 'flavor' ?
                   'Slot' : 'GPU');
    label.setAttribute('role', 'columnheader');
    var track = el('div', 'track');
    track.setAttribute('role', 'columnheader');
    var start = parse(cal.start), end = parse(cal.end);
    var step = state.days === 1 ? 3 * 3600 * 1000 : DAY;
    for (var t = start; t < end; t += step) {
      var tick = el('span', 'tick', state.days === 1 ?
                    new Date(t).toISOString().slice(11, 16) :
                    new Date(t).toISOString().slice(5, 10));
      place(tick, t, t + step, cal);
      tick.style.width = '';
      track.appendChild(tick);
    }
    row.appendChild(label);
    row.appendChild(track);
    return row;
  }

  function barNode(bar, cal) {
    var node = el('button', 'bar ' + styleOf(bar), bar.kind === 'maintenance'
                  ? 'maintenance' : bar.status);
    node.type = 'button';
    var text = words(bar) + ', ' + human(parse(bar.start)) + ' to ' +
      human(parse(bar.end));
    node.title = text;
    node.setAttribute('aria-label', text);
    if (bar.id) { node.dataset.id = bar.id; }
    node.addEventListener('click', function () { say(text, true); });
    return place(node, parse(bar.start), parse(bar.end), cal) ? node : null;
  }

  function freeRow(cal) {
    var row = el('div', 'row free');
    row.setAttribute('role', 'row');
    var label = el('div', 'row-label', 'Free');
    label.setAttribute('role', 'rowheader');
    var track = el('div', 'track');
    track.setAttribute('role', 'gridcell');
    var now = parse(cal.now);
    cal.free.forEach(function (step) {
      var from = parse(step.start), to = parse(step.end);
      // Only what is still to come can be booked.
      var bookable = cal.view === 'flavor' && to > now;
      var node = el(bookable && step.free > 0 ? 'button' : 'span',
                    'free-step' + (to > now ? '' : ' past'),
                    String(step.free));
      node.dataset.free = String(step.free);
      var text = step.free + ' free, ' + human(from) + ' to ' + human(to);
      node.title = text;
      node.setAttribute('aria-label', text +
                        (bookable && step.free > 0 ? '; book it' : ''));
      if (node.tagName === 'BUTTON') {
        node.type = 'button';
        node.addEventListener('click', function () {
          openBooking(from, to, step.free);
        });
      }
      if (place(node, from, to, cal)) { track.appendChild(node); }
    });
    row.appendChild(label);
    row.appendChild(track);
    return row;
  }

  function nowLine(cal, chart) {
    var now = parse(cal.now), start = parse(cal.start), end = parse(cal.end);
    if (now < start || now >= end) { return; }
    var line = el('div', 'now');
    line.setAttribute('aria-hidden', 'true');
    line.appendChild(el('span', 'now-label', 'now'));
    // Over the tracks, not the labels.
    line.style.left = 'calc(var(--label-width) + (100% - var(--label-width)) * ' +
      ((now - start) / (end - start)) + ')';
    chart.appendChild(line);
  }

  function draw(cal) {
    var chart = $('chart');
    chart.textContent = '';
    if (!cal) { legend(); return; }
    chart.appendChild(axis(cal));
    cal.rows.forEach(function (row) {
      var line = el('div', 'row');
      line.setAttribute('role', 'row');
      var label = el('div', 'row-label', row.label);
      label.setAttribute('role', 'rowheader');
      label.title = row.label;
      var track = el('div', 'track');
      track.setAttribute('role', 'gridcell');
      row.bars.forEach(function (bar) {
        var node = barNode(bar, cal);
        if (node) { track.appendChild(node); }
      });
      line.appendChild(label);
      line.appendChild(track);
      chart.appendChild(line);
    });
    chart.appendChild(freeRow(cal));
    chart.setAttribute('aria-rowcount', String(cal.rows.length + 2));
    nowLine(cal, chart);
    legend();
    // For the page's measurements (tests/benchmarks/bench_calendar_page.py).
    if (window.performance && performance.mark) {
      performance.mark('calendar-drawn');
    }
    document.body.dataset.drawn = String(Number(document.body.dataset.drawn ||
                                                0) + 1);
  }

  var LEGEND = [
    ['own-active', 'ACTIVE', 'yours, running'],
    ['own-waiting', 'ALLOCATED', 'yours, to come'],
    ['own-ended', 'COMPLETE', 'yours, ended'],
    ['own-error', 'ERROR', 'yours, failed'],
    ['busy', 'busy', "another project's"],
    ['maintenance', 'maintenance', 'maintenance window']
  ];

  function legend() {
    var box = $('legend');
    box.textContent = '';
    LEGEND.forEach(function (entry) {
      var item = el('span', 'legend-item');
      var swatch = el('span', 'swatch');
      swatch.setAttribute('aria-hidden', 'true');
      swatch.appendChild(el('span', 'bar ' + entry[0], ''));
      item.appendChild(swatch);
      item.appendChild(document.createTextNode(entry[1] + ': ' + entry[2]));
      box.appendChild(item);
    });
    var free = el('span', 'legend-item', 'Free row: instances free; pick a ' +
                  'stretch to book it. The dashed line is now.');
    box.appendChild(free);
  }

  // -- keyboard: arrows move between bars ----------------------------------

  function onChartKey(event) {
    var target = event.target;
    if (!target.classList.contains('bar') &&
        !target.classList.contains('free-step')) { return; }
    var track = target.parentNode;
    var items = Array.prototype.slice.call(track.querySelectorAll(
      'button.bar, button.free-step'));
    var index = items.indexOf(target);
    var next = null;
    if (event.key === 'ArrowRight') { next = items[index + 1]; }
    if (event.key === 'ArrowLeft') { next = items[index - 1]; }
    if (event.key === 'ArrowUp' || event.key === 'ArrowDown') {
      var rows = Array.prototype.slice.call($('chart').querySelectorAll(
        '.row:not(.axis) .track'));
      var r = rows.indexOf(track) + (event.key === 'ArrowDown' ? 1 : -1);
      while (r >= 0 && r < rows.length && !next) {
        var candidates = rows[r].querySelectorAll('button');
        var left = target.getBoundingClientRect().left, best = null;
        Array.prototype.forEach.call(candidates, function (c) {
          var d = Math.abs(c.getBoundingClientRect().left - left);
          if (best === null || d < best.d) { best = {d: d, node: c}; }
        });
        next = best && best.node;
        r += event.key === 'ArrowDown' ? 1 : -1;
      }
    }
    if (next) { event.preventDefault(); next.focus(); }
  }

  // -- booking ------------------------------------------------------------

  function openBooking(from, to, free) {
    var soon = Math.ceil((Date.now() + 5 * 60 * 1000) / 60000) * 60000;
    var start = Math.max(from, soon);
    var end = Math.min(to, start + 4 * 3600 * 1000);
    if (end <= start) { end = start + 3600 * 1000; }
    var flavor = state.subjects.filter(function (f) {
      return f.id === state.subject;
    })[0];
    $('booking-flavor').textContent = 'Flavor ' + (flavor ? flavor.name :
                                                   state.subject);
    $('booking-count').value = '1';
    $('booking-count').max = String(free);
    $('booking-start').value = toInput(start);
    $('booking-end').value = toInput(end);
    $('booking-hint').textContent = free + ' free from ' + human(from) +
      ' to ' + human(to) + '.';
    $('booking-error').textContent = '';
    showOffer(null);
    $('booking').showModal();
    $('booking-count').focus();
  }

  function bookingBody() {
    var start = $('booking-start').value;
    var end = $('booking-end').value;
    var offered = state.offered;
    // The window offered as it was, while the form still shows it.
    var asOffered = offered && toInput(parse(offered.start)) === start &&
      toInput(parse(offered.end)) === end;
    return {flavor_id: state.subject,
            start: asOffered ? offered.start : iso(fromInput(start)),
            end: asOffered ? offered.end : iso(fromInput(end)),
            instance_count: parseInt($('booking-count').value, 10)};
  }

  // A refusal's counter offer: a button per window offered (and for the
  // most instances that fit in the window asked), each filling the form.
  function showOffer(offer) {
    var box = $('booking-offer');
    box.textContent = '';
    box.hidden = !offer;
    state.offered = null;
    if (!offer) { return; }
    var sides = [['before', 'Earlier'], ['after', 'Later']];
    sides.forEach(function (side) {
      var offered = offer[side[0]];
      if (!offered) { return; }
      offerButton(box, side[1] + ': ' + human(parse(offered.start)) +
                  ' to ' + human(parse(offered.end)), side[0], function () {
        state.offered = {start: offered.start, end: offered.end};
        $('booking-start').value = toInput(parse(offered.start));
        $('booking-end').value = toInput(parse(offered.end));
        // The free count of the stretch first clicked no longer holds.
        $('booking-count').removeAttribute('max');
        $('booking-count').value = String(offer.instance_count);
        return 'The ' + side[1].toLowerCase() + ' window offered: book it.';
      });
    });
    var most = offer.max_instance_count;
    if (most > 0 && most < offer.instance_count) {
      offerButton(box, most + ' instance' + (most > 1 ? 's' : '') +
                  ' in the window asked', 'most', function () {
        $('booking-count').value = String(most);
        return 'As many as fit in the window asked: book them.';
      });
    }
    if (!box.children.length) {
      box.textContent = 'Nothing of this shape fits nearby.';
    }
  }

  function offerButton(box, text, which, fill) {
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'offer';
    button.dataset.offer = which;
    button.textContent = text;
    button.addEventListener('click', function () {
      var hint = fill();
      var kept = state.offered;
      showOffer(null);
      state.offered = kept;
      $('booking-error').textContent = '';
      $('booking-hint').textContent = hint;
      $('booking-submit').focus();
    });
    box.appendChild(button);
  }

  function submitBooking(event) {
    event.preventDefault();
    var body = bookingBody();
    $('booking-error').textContent = '';
    $('booking-submit').disabled = true;
    call('POST', '/v1/reservations', body).then(function (answer) {
      $('booking').close();
      return load().then(function () {
        say('Booked: reservation ' + answer.reservation.id + ', ' +
            answer.reservation.status + '.', true);
      });
    }, function (error) {
      $('booking-error').textContent = error.detail;
      showOffer(error.counterOffer);
    }).then(function () { $('booking-submit').disabled = false; });
  }

  function snap() {
    var body = bookingBody();
    var length = parse(body.end) - parse(body.start);
    var query = new URLSearchParams({
      start: body.start, end: iso(Math.max(rangeEnd(), parse(body.end)) +
                                  7 * DAY),
      instance_count: String(body.instance_count)});
    $('booking-error').textContent = '';
    call('GET', '/v1/flavors/' + encodeURIComponent(state.subject) +
         '/free-slots?' + query).then(function (answer) {
      var fit = answer.free_slots.filter(function (w) {
        return parse(w.end) - parse(w.start) >= length;
      })[0];
      if (!fit) {
        $('booking-error').textContent = 'No free window of that length ' +
          'and size within the next weeks.';
        return;
      }
      $('booking-start').value = toInput(parse(fit.start));
      $('booking-end').value = toInput(parse(fit.start) + length);
      $('booking-hint').textContent = 'Moved to the first window that fits.';
    }, function (error) { $('booking-error').textContent = error.detail; });
  }

  // -- wiring -------------------------------------------------------------

  // ?date=YYYY-MM-DD opens the view that holds that day (a link to a
  // booking's day); anything else opens on today.
  function openingDay(params) {
    var day = /^\d{4}-\d{2}-\d{2}$/.test(params.get('date') || '') ?
      Date.parse(params.get('date') + 'T00:00:00Z') : NaN;
    return isNaN(day) ? Date.now() : day;
  }

  // Subjects anew (a view switched, a token handed over), same period.
  function restart() {
    return loadSubjects().then(load, function (error) { say(error.detail); });
  }

  function init() {
    takeTokenFromHash();
    var params = new URLSearchParams(window.location.search);
    if (params.get('host')) { state.view = 'host'; }
    if (params.get('range')) {
      state.days = {day: 1, week: 7, month: 31}[params.get('range')] || 7;
    }
    state.start = alignedStart(openingDay(params), state.days);
    $('view').value = state.view;
    $('range').value = String(state.days);
    $('view').addEventListener('change', function () {
      state.view = $('view').value;
      restart();
    });
    $('subject').addEventListener('change', function () {
      state.subject = $('subject').value;
      load();
    });
    $('range').addEventListener('change', function () {
      state.days = parseInt($('range').value, 10);
      state.start = alignedStart(state.start, state.days);
      load();
    });
    function move(sign) {
      if (state.days === 31) {
        var d = new Date(state.start);
        d.setUTCMonth(d.getUTCMonth() + sign);
        state.start = d.getTime();
      } else {
        state.start += sign * state.days * DAY;
      }
      load();
    }
    $('previous').addEventListener('click', function () { move(-1); });
    $('next').addEventListener('click', function () { move(1); });
    $('today').addEventListener('click', function () {
      state.start = alignedStart(Date.now(), state.days);
      load();
    });
    $('chart').addEventListener('keydown', onChartKey);
    $('booking-form').addEventListener('submit', submitBooking);
    $('booking-snap').addEventListener('click', snap);
    $('booking-cancel').addEventListener('click', function () {
      $('booking').close();
    });
    $('token-form').addEventListener('submit', function (event) {
      event.preventDefault();
      window.sessionStorage.setItem(TOKEN_KEY, $('token').value.trim());
      $('token-box').hidden = true;
      restart();
    });
    // A dashboard that embeds the page may hand a new token over later.
    window.addEventListener('hashchange', function () {
      if (/token=/.test(window.location.hash)) {
        takeTokenFromHash();
        $('token-box').hidden = true;
        restart();
      }
    });
    window.addEventListener('message', function (event) {
      var data = event.data || {};
      if (event.source === window.parent && data.type === 'reserve-token' &&
          data.token) {
        window.sessionStorage.setItem(TOKEN_KEY, data.token);
        $('token-box').hidden = true;
        restart();
      }
    });
    restart();
  }

  document.addEventListener('DOMContentLoaded', init);
}());
