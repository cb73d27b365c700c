;; The 8-line agent script of issue 19: two sequential calls, one `parallel` of three, plist
;; and string work. Tools answer at once.
(let* ((user (get_user :id 42))
       (orders (list_orders :user (plist-get user :id) :limit 3))
       (details (parallel (get_order :id (nth 0 orders)) (get_order :id (nth 1 orders))
                          (get_order :id (nth 2 orders)))))
  (list :name (upcase (plist-get user :name))
        :count (length orders)
        :summary (mapconcat (lambda (d) (format "%s=%s" (plist-get d :id) (plist-get d :total)))
                            details ", ")))
